// Package papers is the catalog of the paper reproductions `ckpt repro
// NAME|all` runs, each with its paper, its options and the tolerance of
// its comparison rows, for any Go program that runs them as the command
// does (repro.Catalog.Run). The slurm reproduction is not in it: it
// submits real jobs, so `all` leaves it out.
//
// The tolerances of `ckpt report` (|ours − paper| ≤ max(Abs, Rel·|paper|)):
// 5 % for the reservation paper, whose numbers are deterministic numerical
// results that we recompute exactly; 10 % for the others, whose numbers
// are means of simulations or read off figures.
//
// Complexity: a map of five entries; running them is each reproduction's.
package papers

import (
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/repro"
	reprocapacity "github.com/ckpt-hpc/ckpt/repro/capacity"
	reprocloud "github.com/ckpt-hpc/ckpt/repro/cloud"
	reprocoop "github.com/ckpt-hpc/ckpt/repro/coop"
	reproprofiles "github.com/ckpt-hpc/ckpt/repro/profiles"
	reproreservation "github.com/ckpt-hpc/ckpt/repro/reservation"
)

// Catalog maps `ckpt repro NAME` to the paper it reproduces.
var Catalog = repro.Catalog{
	"reservation": {Paper: "Reservation and Checkpointing Strategies for Stochastic Jobs (IPDPS 2020)", Run: reproreservation.Run, Tolerance: report.Tolerance{Rel: 0.05, Abs: 1e-9}},
	"profiles":    {Paper: "Profiles of upcoming HPC Applications and their Impact on Reservation Strategies (IEEE TPDS 2021)", Run: reproprofiles.Run, Seeded: true, Data: true, Tolerance: report.DefaultTolerance},
	"cloud":       {Paper: "Optimization of Cloud Task Processing with Checkpoint-Restart Mechanism (SC 2013)", Run: reprocloud.Run, Seeded: true, Data: true, Accountings: reprocloud.Accountings, Tolerance: report.DefaultTolerance},
	"coop":        {Paper: "Optimal Cooperative Checkpointing for Shared HPC Platforms (APDCM 2018)", Run: reprocoop.Run, Seeded: true, Accountings: reprocoop.Accountings, Tolerance: report.DefaultTolerance},
	"capacity":    {Paper: "Scheduling Jobs Under a Variable Number of Processors (Inria RR-9582, 2025)", Run: reprocapacity.Run, Seeded: true, Data: true, Tolerance: report.DefaultTolerance},
}
