// Package coop reproduces the experiments of Herault, Robert, Bouteiller,
// Arnold, Ferreira, Bosilca and Dongarra, "Optimal Cooperative
// Checkpointing for Shared High-Performance Computing Platforms" (APDCM
// 2018), as `ckpt repro coop`:
//
//   - Fig. 1: checkpoint slowdown of the blocking strategies against the
//     system MTBF at 160, 80 and 40 GB/s (fig1_*.csv, fig1_*.png/.svg);
//   - Fig. 2: waste of the seven strategies against the bandwidth (40–160
//     GB/s, node MTBF 2 years), with Theorem 1's bound and the published
//     (Maple) bound (fig2.csv, fig2_box and fig2_mean .png/.svg);
//   - Fig. 3: waste against the node MTBF at 40 GB/s (fig3*);
//   - Fig. 4: the smallest bandwidth reaching 80 % efficiency on the
//     prospective 50 000-node system, by bisection (fig4.csv, fig4.png/.svg);
//   - Figs. 2–3 at the points of the authors' result files, in our
//     accounting, in theirs, and with each behaviour of their simulator
//     (iosim.AuthorsModel) alone and all together (authors.csv), beside
//     their published values;
//   - comparisons.csv: the numbers the paper states beside ours.
//
// repro.Config.Accounting (Accountings: ours, authors, authors-model) runs
// Figs. 1–4 in our accounting, in the authors' booking, normalisation and
// spacing, or in that with every switch of iosim.AuthorsModel.
//
// Every trial runs the baseline and all strategies on the same job list
// and failure draws; replicate r uses the same seed at every point of a
// sweep. --quick shrinks seeds and points so that CI runs it in seconds.
//
// Complexity: each trial is one discrete-event simulation, O(events ×
// log(jobs)) time and O(nodes + jobs) memory (package iosim); a figure runs
// points × strategies × seeds of them on cfg.Workers workers. Randomness:
// seeded through repro.Config.BaseSeed (1 by default) and runner.Seed.
package coop
