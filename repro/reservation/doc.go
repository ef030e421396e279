// Package reservation reproduces the tables and figures of Gainaru et al.,
// "Reservation and Checkpointing Strategies for Stochastic Jobs" (IPDPS
// 2020), as `ckpt repro reservation`: the introduction's example, Table 2,
// and Figs. 5, 6 and 7. Each experiment writes a CSV file and a figure, and
// the numbers the paper prints are compared with ours in comparisons.csv.
//
// The experiments call the reservation package's algorithms directly
// (ApproximateContext on Algorithm 1's grid, BestPeriodic for Algorithm 2,
// ExpectedCost for Theorem 1), not reservation.Run: a figure compares the
// classes on the paper's grid, capped at maxN, where Run sizes its own
// grid (with a floor of reservation.DefaultMinN points) for one plan.
//
// Complexity: each point of a figure is O(n²) time and O(n) memory for a
// grid of n ≤ maxN points (20 000 at full size, 300 with --quick) plus
// O(maxTau²) survival evaluations for the periodic strategies; the points
// run in parallel through the runner package.
package reservation
