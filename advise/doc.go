// Package advise is the site's walltime advisor: it learns, from a job log
// (Standard Workload Format, a CQSim result file, or a Slurm sacct dump or
// the cluster's accounting, read by package advise/logs), what each group
// of jobs runs for, and answers for
// a job about to be submitted with the walltime to ask — the first
// reservation of the optimal sequence of the seed paper (Gainaru et al.,
// "Reservation and Checkpointing Strategies for Stochastic Jobs", IPDPS
// 2020, Section 2.2 and Theorem 2, NO-CKPT class) under the site's own cost
// model — or with the advice to keep the user's request.
//
// # The site's cost model
//
// A reservation of length t costs the job the queue wait it pays plus the
// time it runs. The wait is fitted by least squares on the log's
// (requested time, wait) pairs (SWF fields 9 and 3): wait(t) = a·t + b.
// A reservation in which the job runs min(t, X) therefore costs
// a·t + 1·min(t, X) + b: the paper's α·t + β·used + γ with α = a, β = 1,
// γ = b, and its expected total is the job's expected turnaround (waits +
// runs, a kill costing another wait and the lost run). Jobs of these logs
// do not checkpoint, so the sequence is the paper's NO-CKPT one.
//
// # Groups, censoring and the law
//
// Runs are grouped by user, group/account, job name (SWF: executable),
// queue, partition, node-count class (⌈log2 nodes⌉) and the user's
// requested time. A job is advised from the narrowest of a fixed list of
// groupings (Levels) that holds at least MinRuns ended runs; only the last
// Window runs of a group are kept. A run that ended within Tolerance of its
// limit is censored (its true length is at least the limit). The law is the
// Kaplan–Meier estimate of the group's runs, clamped at the job's own
// request, scaled by n/(n+k), with the remaining k/(n+k) put on the job's
// request (k = Params.Prior, 2 by default; with k = 1 it is, for
// exchangeable runs, the chance that the next one outlasts all n seen so
// far), so that little history never yields bold advice.
//
// # Abstention
//
// Each group keeps a ledger: for every ended job it could advise, the
// turnaround its advice would have given minus that of the user's request
// (both under the advisor's wait model, fitted online from ended jobs),
// whether the advice was followed or not. Until the ledger is positive,
// the group keeps the users' requests. Advice to jobs without --time
// (judged against the longest request seen) keeps a ledger apart.
//
// # Complexity
//
// Learning and replaying are O(J log J) for J jobs plus, per job and per
// level whose group has enough history, one plan for a window of w runs:
// O(w log w) for the Kaplan–Meier estimate and O(w²) for the NO-CKPT
// sequence (noCkptPlan: the advisor's laws have at most w + 1 points, and
// answering links no capability package, so that cmd/ckpt-advise starts
// in a few milliseconds). A model file holds one
// sorted JSON line per group between a header and an end line; answering
// binary-searches it, O(levels·log G) line reads, and decodes at most one
// line per level.
package advise
