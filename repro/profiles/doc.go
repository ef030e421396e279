// Package profiles reproduces Section 4.3 of Gainaru, Goglin, Honoré and
// Pallez, "Profiles of upcoming HPC Applications and their Impact on
// Reservation Strategies" (IEEE TPDS 2021): reservation strategies that ask
// for time and memory, learned from k runs of SLANT (and MaCRUISE), and
// evaluated on every run (`ckpt repro profiles`). The strategies come from
// memplan.PlanApp; FINDINGS.md records where we differ from the paper.
package profiles
