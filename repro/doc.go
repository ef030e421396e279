// Package repro holds what every paper reproduction shares: the table that
// puts the paper's published numbers beside ours, written as CSV and as
// aligned text, and the layout of a reproduction's output folder. Each
// paper's reproduction has one name, NAME: it is run by `ckpt repro NAME`,
// lives in package repro/NAME (package clause NAME), writes its outputs to
// OUT/NAME and explains them in repro/NAME/FINDINGS.md — reservation,
// profiles, cloud, coop, capacity and slurm.
//
// Naming convention: three reproductions share their name with what they
// reproduce (repro/reservation and reservation, repro/capacity and
// capacity, repro/slurm and slurm). Inside a reproduction the capability
// or service keeps its own name, unaliased (as html/template imports
// text/template); every file outside repro that imports a reproduction
// names it repro+NAME (reproreservation, reprocloud, reproslurm, …), so
// that in any file `capacity.` is the capability and `reprocapacity.` its
// reproduction.
//
// Each sub-package's doc comment names its paper and the sections, tables
// and figures it reproduces. A Catalog maps each name to its Reproduction
// (paper, run, the options that apply); Catalog.Run runs a Request, one
// reproduction or all of them and their report. Config carries what the command passes: the
// output folder, --quick, --workers, --seed (BaseSeed keeps each
// reproduction's own seed unless one is given), the log and progress
// writers. Table writes a CSV row by row (float64 cells with 8 significant
// digits, Exact cells with all of them); a cancelled sweep leaves whole
// rows only.
//
// Complexity: Table and the comparison writers take time linear in what
// they write and buffer one row (csv.Writer's 4 KB); RunSteps holds every
// comparison in memory until comparisons.csv is written.
package repro
