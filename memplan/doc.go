// Package memplan is the memory-aware reservation planner for multi-phase
// applications of Gainaru, Goglin, Honoré and Pallez, "Profiles of upcoming
// HPC Applications and their Impact on Reservation Strategies" (IEEE TPDS
// 2021), Section 4: every reservation of a strategy S = ((R_1, T_1, C_1), …)
// also carries the memory M_k to request, and the checkpoint that ends
// reservation k costs C(M_τ(t_k)) — the memory the job is likely to hold when
// it is taken — instead of a constant.
//
// The entry point a program calls is Run(ctx, Request): a Request names
// the model's source (a built-in or file profile, or a folder of traces),
// the costs and the options, each with its unit; Request.Validate names the
// first field out of range (a usage.Error); the *Report Run returns is the
// JSON schema of `ckpt reserve --profile/--task-dir --json`, with its text
// renderer (Report.WriteText) beside it and its pictures in picture.go.
// `ckpt reserve --profile` maps its flags to a Request and renders the
// Report; nothing else.
//
// The application model (tasks, the law of the total walltime, M_τ(t) of
// Eq. (2), C(V) = l + V/b) is package profile's. The profiles paper builds
// on the seed paper's model, so memplan imports package reservation, the
// one capability another capability imports: its law preparation
// (reservation.Law, MaxWalltime, MaxNegativeMass), its support layout
// (SupportLayout, shared with DynProgCount), its Reservation record and
// its reservation table (WriteTable, TableCutoff). Neither profile nor
// reservation depends on memplan.
//
//   - MemAllCkpt is MEM-ALL-CKPT (Section 4.2), MemAllCkptV2 MEM-ALL-CKPT-V2
//     (Section 4.3.3), Neuro the practitioners' NEURO and NEURO-AVG
//     (Section 4.2), ConstantMemory the memory-oblivious ALL-CKPT.
//   - PlanApp builds all of them for a profile.App (Section 4.3; Run calls
//     it), and
//     CheckModel refuses the task laws whose discretised total is wrong.
//     The strategies are registered by name (AppStrategies, CheckAppStrategy:
//     package registry); AppPlanOptions.Validate reports an option out of
//     range as an *OptionError naming its field.
//   - EvaluateRun replays a plan on one actual run, memory kills included
//     (the metrics of Section 4.3.2); ExpectedMetrics prices a plan under a
//     discrete law.
//   - Section 4.5 (a plan moved to another machine from phase walltimes
//     only): PhaseFactors estimates the per-phase slowdowns,
//     ScalePlan is the paper's global transfer (every reservation × 1.7,
//     the first of MEM-ALL-CKPT-V2 × 1.1: PaperGlobalFactor,
//     PaperFirstFactor), TransferApp and TransferSource the per-phase one
//     (each task law scaled, then planned again).
//
// Glossary (paper symbol: code): Y ~ (v_i, f_i): MemLaw.Values, Probs;
// C_i = C(M_0.1(v_i)): MemLaw.Ckpt; M_τ(v_i): MemLaw.Mem; R: Restart;
// W_k = R_k + T_k + C_k: MemReservation.Length; ν (tail mass): TailMass;
// n (discretisation, 1000 in the paper): AppPlanOptions.N; ε of V2: V2Eps.
//
// # Complexity
//
// For a law of n support points, MemAllCkpt and MemAllCkptV2 take O(n²) time
// and O(n) memory; under a longest reservation (MemLaw.MaxLength,
// Request.MaxRequest, exact: the optimum under the bound) O(n·K), K the
// most support points within that many seconds; EvaluateRun is O(m·r) for a run of m tasks and r
// reservations; ExpectedMetrics O(n·r). PlanApp adds the Timeline of
// package profile (O(t·N²) for t tasks on a grid of N steps). PhaseFactors
// is O(m·k) for k runs of m phases, ScalePlan O(r), and
// TransferApp and TransferSource cost what PlanApp does.
//
// ProfilePanels, PlotProfile and ProfilePage draw a plan as Fig. 18 of the
// paper does: memory over the application's progress with each
// reservation as a time × memory box, and each task's probability of
// running (`ckpt reserve --profile --plot/--html`); O(t·N) for t tasks on
// N plotted points.
package memplan
