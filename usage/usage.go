package usage

import (
	"errors"
	"fmt"
	"os"
)

// Error is an error caused by the caller's input. Field names what was bad
// (a Request field, a flag, a file) and may be empty when Err already says.
type Error struct {
	Field string
	Err   error
}

// Error returns "field: message", or the message alone without a field.
func (e *Error) Error() string {
	if e.Field == "" {
		return e.Err.Error()
	}
	return e.Field + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Wrap marks err as a usage error (nil stays nil). An error that already is
// one is returned as it is.
func Wrap(err error) error {
	if err == nil || Is(err) {
		return err
	}
	return &Error{Err: err}
}

// Errorf returns a usage error with no field: the message names the value.
func Errorf(format string, a ...any) error {
	return &Error{Err: fmt.Errorf(format, a...)}
}

// Fieldf returns a usage error naming field, as "field: message".
func Fieldf(field, format string, a ...any) error {
	return &Error{Field: field, Err: fmt.Errorf(format, a...)}
}

// Is reports whether err, or an error it wraps, is a usage error.
func Is(err error) bool {
	var ue *Error
	return errors.As(err, &ue)
}

// Open opens an input file; a missing or unreadable file is a usage error
// that names the path (the *os.PathError's own message).
func Open(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Wrap(err)
	}
	return f, nil
}
