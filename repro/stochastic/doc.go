// Package stochastic reproduces the tables and figures of Gainaru et al.,
// "Reservation and Checkpointing Strategies for Stochastic Jobs" (IPDPS
// 2020): the introduction's example, Table 2, and Figs. 5, 6 and 7. Each
// experiment writes a CSV file and a figure, and the numbers the paper
// prints are compared with ours in comparisons.csv.
//
// Complexity: each point of a figure is one reservation.Plan, O(n²) time
// and O(n) memory for a grid of n ≤ maxN points (20 000 at full size, 300
// with --quick) plus O(maxTau²) survival evaluations for the periodic
// strategies; the points run in parallel through the runner package.
package stochastic
