//go:build !race

package main

// slow scales the deadlines of the Ctrl-C tests (10 under the race
// detector, see race_on_test.go).
const slow = 1
