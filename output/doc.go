// Package output writes ckpt's machine-readable results and keeps count of
// write errors, so that no command reports success after losing its output
// (a full disk, a closed pipe).
//
//   - Number is a float64 that JSON encodes as null when it is NaN or ±Inf
//     (JSON has no such values; encoding/json refuses them);
//   - WriteJSON is the one JSON encoder of the commands' --json output;
//   - Writer wraps an io.Writer and remembers the first write error, so that
//     text reports written with many fmt.Fprintf calls check once, at the end.
//
// It implements no paper; it carries the papers' quantities (NaN where a
// strategy completes no checkpoint, +Inf for an infinite mean) to JSON.
//
// Complexity: time linear in the size of what is written; WriteJSON holds
// the encoded value in memory once, Writer holds nothing but the error.
package output
