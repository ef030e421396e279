// Package usage marks the errors that the caller's input causes: a bad
// field of a Request, a bad flag value, a missing, unreadable or malformed
// input file. cmd/ckpt exits with status 2 for these and 1 for every other
// error (a runtime failure: a scheduler that does not answer, a full disk).
//
// Capability packages return usage errors from their Validate methods and
// from the loaders of their inputs (walltime and failure sources, profiles,
// platforms), so that the CLI, the coordinator and a Go caller tell the two
// kinds apart the same way: errors.As(err, new(*usage.Error)) or Is(err).
//
// It is a shared package: it imports only the standard library.
package usage
