// Command ckpt plans and simulates checkpointing, reservations and
// scheduling for HPC and cloud jobs. Each subcommand wires flags to one of
// the library packages; see the README for the layout.
//
// The command holds no domain logic: each file parses one command's flags,
// calls a package function, and prints (text on stdout, or JSON with
// --json; progress and warnings on stderr). Exit status 0, 1 for runtime
// failures, 2 for usage errors.
package main
