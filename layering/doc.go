// Package layering states which of ckpt's packages may import which, and
// its test holds the rule against every import in the module.
//
// Four layers, each importing only from layers below it (and the standard
// library and the dependencies in go.mod):
//
//  1. Shared packages: the mathematics and plumbing that every capability
//     uses and that implement no paper's system — units, usage, rng,
//     optimize, output (and output/jsontest, test generators), registry, datadir (and datadir/datadirtest, for tests), distribution, des, runner, plot
//     and its renderer plot/draw, report, supervise (the one supervisor of an app process), and trace. A shared package imports only shared packages,
//     and trace, the readers of job, failure and cost logs, only the
//     smallest of them (units, usage, output, rng): a reader reads, it does
//     not fit laws.
//  2. Capabilities: one group per paper's system, each with one
//     Request -> Validate -> Run -> Report entry point — reservation
//     (stochastic jobs), profiles (profile, memplan), interval (cloud
//     checkpoint/restart), iosim (cooperative I/O, with iosim/arbiter) and
//     capacity (variable processor count). A capability imports shared
//     packages and its own group only. One edge between groups is allowed
//     and stated: memplan imports reservation, because the profiles paper
//     plans each memory class with the seed paper's dynamic program
//     (Section 3 of hpc-application-profiles-and-reservations); the DP has
//     one home, with one stated exception: advise keeps the NO-CKPT row of
//     Theorem 2 (advise/nockpt.go, 40 lines, tested against DynProgCount)
//     so that answering links neither reservation nor its pictures.
//  3. Services and reproductions built on the capabilities: advise (the
//     site walltime advisor; advise/logs reads the site's logs, learns and
//     replays them; cmd/internal/askcmd is the command line of its answer,
//     shared by cmd/ckpt and cmd/ckpt-advise), slurm (the
//     chain builder, the runner, the cluster interface), coord and its
//     subpackages (the coordinator), repro and its subpackages. A
//     reproduction may use a service (repro/slurm submits through
//     slurm); a service uses no reproduction.
//  4. cmd/ckpt (and cmd/ckpt-advise, the advisor's answer alone): maps
//     flags to Requests and renders Reports; it may import anything, and
//     nothing imports it.
//
// Start-up: gonum/plot's root package parses every Liberation font in its
// init (12 ms of CPU for a program importing only it, 5.3 ms for an empty
// one, issue 25), and Go runs the init of every linked package. So only
// plot/draw, the reproductions and the commands (layer 4) may import
// gonum.org/v1/plot or plot/draw; package plot keeps the API and draws
// through the renderer plot/draw registers (gonum/plot's vg and font, the
// lengths and font names a picture is described with, do not import the
// root; any other gonum/plot package counts as the root). A second test
// runs go list -deps -tags lite on the light packages (reservation,
// memplan, slurm, advise/logs, capacity, interval, iosim, coord,
// coord/client) and on the lite ckpt itself (cmd/ckpt) and refuses
// gonum/plot's root, plot/draw, the Prometheus client and Raft among their
// dependencies, so that ckpt -tags lite starts without those inits. Tests
// may link plot/draw (they are not in any binary).
//
// Complexity: the test parses the import clauses of every Go file once,
// O(total size of the import blocks); go list -deps loads the light
// packages' dependency graph once.
package layering
