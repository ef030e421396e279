// Package logs is the walltime advisor's side that reads the site's job
// logs: Standard Workload Format and CQSim files (advise.ReadSWF), Slurm
// `sacct --parsable2` dumps and the cluster's own accounting through
// slurm.SiteAccounting (a ckpt chain's reservations joined into one run by
// slurm.GroupRuns); Learn builds or extends a model file from them and
// ReplayRun replays one with no look-ahead, with the replay's picture and
// HTML page. The method — groups, censoring, the law, the NO-CKPT sequence
// of the seed paper (Gainaru et al., IPDPS 2020, Section 2.2 and Theorem
// 2) and abstention — is package advise's, which answers a query without
// linking this package (nor Slurm, the reservation capability or the
// plots): cmd/ckpt-advise answers in a few milliseconds.
//
// Complexity: reading a log is O(lines) (O(J log J) to sort its J jobs);
// learning and replaying are package advise's, O(J log J) plus one plan of
// O(w²) per job and level for windows of w runs.
package logs
