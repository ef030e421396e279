// Package datadir finds ckpt's data folder: the real traces, failure logs
// and cost tables that reproductions and data-driven commands read. The
// product knows no machine's paths: the folder is, in this order,
//
//  1. the --data flag (passed in as flag),
//  2. $CKPT_DATA,
//  3. ../shared/data beside the checkout: the first shared/data found in a
//     parent of the working directory or of the nearest folder above it
//     that holds go.mod, so that commands run from the checkout and tests
//     run from a package folder find the same data.
//
// It implements no paper; the data it finds are the papers' (walltime
// logs, LANL failure records, BLCR cost tables, Google traces, SLANT and
// MaCRUISE profiles).
//
// Complexity: O(depth of the working directory) stat calls, O(1) memory.
package datadir
