// Package registry is the one pattern by which ckpt's capabilities name
// their strategies, policies and algorithms: an ordered, immutable table
// from name to value, built once from a literal list, in which a duplicate
// name is a programming error found at start-up and an unknown name is a
// user error that lists the known ones.
//
// The named things come from the papers: the reservation strategies of the
// IPDPS 2020 paper, the I/O strategies of the APDCM 2018 paper, the
// scheduling algorithms of Inria RR-9582.
//
// Complexity: New is O(n) time and memory for n entries; Lookup and Has are
// O(1); Names, Entries and LookupList are O(n) (LookupList O(k) for k
// listed names).
package registry
