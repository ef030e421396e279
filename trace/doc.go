// Package trace reads the job, walltime and failure logs that ckpt plans and
// simulates against. One file per format:
//
//   - history.go: past walltimes of one application, for
//     "ckpt reserve --history FILE". Two layouts are auto-detected: one
//     value per line, and CSV with a header. Skipped: blank lines, "#"
//     comments, repeated header lines, each counted by reason in
//     Walltimes.Skipped. Slurm "sacct --parsable2" output is recognised (by
//     its "|") and refused: it is read by slurm.ReadSacct, the one sacct
//     reader, through slurm.ReadHistory, which also reads the two layouts
//     here (a chain of reservations is one run there, and runs that never
//     finished are censored, which a list of values cannot say).
//   - swf.go: the Standard Workload Format v2.2 of the Parallel Workloads
//     Archive (";" header lines, 18 fields per job, -1 = unknown), gzip
//     detected from its magic bytes, and the semicolon-separated result
//     files of the CQSim simulator (real request and run time, simulated
//     schedule). Skipped: blank lines, and a CQSim header line.
//   - gloudsim.go: Google cluster trace (2011) jobs as exported by GloudSim,
//     each task with its execution segments: the failure counts and
//     uninterrupted intervals from which Di et al. (SC'13, Sections 4.1 and
//     5, Fig. 5, Table 7) estimate MNOF and MTBF per priority. Skipped:
//     blank lines.
//   - batsim.go, batsimout.go: Batsim (oar-team/batsim) JSON workloads
//     (nb_res, jobs, profiles; other fields kept and written back),
//     conversion to and from SWF, the external-events file
//     (machine_unavailable / machine_available on interval sets of
//     resources, one JSON object a line) and Batsim's outputs PREFIX_jobs.csv
//     and PREFIX_schedule.csv (columns found by name). WriteSWF (swf.go)
//     writes SWF v2.2, with GeneratedSWFHeader naming a generator, its
//     parameters and seed; write → read → write gives the same bytes.
//   - fta.go: Failure Trace Archive event traces (Kondo et al., CCGrid
//     2010; the Grid'5000 trace of the shared data): node up/down periods,
//     streamed into per-node and per-system MTBF, a bounded reservoir
//     sample of the inter-failure times (interval.FitFTA fits laws to it:
//     trace only reads) and E(Y) for a task on given nodes. Skipped: "#" header lines and blank lines.
//   - google.go: the task_events table of the Google cluster trace v2
//     (2011): SUBMIT … LOST events per task → execution segments → MNOF
//     and MTBF per priority by FailureCount, the one MNOF/MTBF estimator,
//     which interval uses for GloudSim's files (gloudsim.go) too.
//     Skipped: "#" lines and blank lines; events after the trace's end.
//   - lanl.go: the Los Alamos failure records 1996–2005 (LA-UR-05-7318),
//     with grouping by system and inter-failure times for MTBF and
//     distribution fitting. Skipped: the header line and blank lines.
//
// The history reader serves the reservation papers ("Reservation and
// Checkpointing Strategies for Stochastic Jobs", IPDPS 2020, and the HPC
// application profiles of IEEE TPDS 2021: walltime distributions fitted to
// past runs); SWF and CQSim serve the scheduling papers' workloads.
//
// ReadLANLFile and ReadGloudSimFile are the one way ckpt loads those data
// sets from a path; LANLData and GloudSimData name them inside the data
// folder (found by package datadir).
//
// All readers take an io.Reader and a source name used only in messages.
// Errors are *ParseError values that print on one line as
// "name:line: message" and quote the offending value; readers never panic
// and never skip a malformed line. Lines are limited to 1 MiB. A reader
// given ContextReader (context.go) stops within a buffer of its context's
// cancel (Ctrl-C), the caller returning ctx.Err().
//
// Complexity: every reader is a single pass over its input. The SWF, CQSim,
// LANL, FTA, Batsim-events and Google task-event readers stream (one record
// in memory at a time, O(line) memory); EstimateFTA keeps O(nodes +
// reservoir) whatever the file's length, EstimateGoogle O(tasks). Their
// Read* conveniences, the Batsim JSON reader (a JSON document) and the
// history and GloudSim readers return the whole content, whose memory is
// linear in the number of values, records or segments kept.
package trace
