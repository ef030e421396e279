//go:build race

package main

// slow scales the deadlines of the Ctrl-C tests: the race detector slows
// the code 5-10 times, and CI runs some of these tests under it.
const slow = 10
