package convert

import (
	"fmt"
	"strconv"
)

// FieldError says why a wire object was refused: the offending field, as a
// path of proto field names with list indexes and map keys in brackets
// ("containers[1].requests[cpu]"), and a sentence for people. Path is
// relative to the message passed to the conversion function; it is empty
// when the whole message is at fault (for example a nil one).
type FieldError struct {
	Path   string
	Reason string
}

func (e *FieldError) Error() string {
	if e.Path == "" {
		return e.Reason
	}
	return e.Path + ": " + e.Reason
}

// Prefixed returns the error with prefix put in front of its path, as when
// the converted message is itself a field ("pods[2]") of a larger one.
func (e *FieldError) Prefixed(prefix string) *FieldError {
	return &FieldError{Path: string(path(prefix).join(path(e.Path))), Reason: e.Reason}
}

// path is a proto field path under construction.
type path string

// field is the path of a sub-field.
func (p path) field(name string) path {
	if p == "" {
		return path(name)
	}
	return p + "." + path(name)
}

// index is the path of a list element.
func (p path) index(i int) path { return p + "[" + path(strconv.Itoa(i)) + "]" }

// key is the path of a map entry.
func (p path) key(k string) path { return p + "[" + path(k) + "]" }

// join appends a relative path.
func (p path) join(rel path) path {
	switch {
	case rel == "":
		return p
	case p == "":
		return rel
	case rel[0] == '[':
		return p + rel
	}
	return p + "." + rel
}

func (p path) errorf(format string, args ...any) *FieldError {
	return &FieldError{Path: string(p), Reason: fmt.Sprintf(format, args...)}
}

// asError returns fe as an error, nil when fe is nil (so no typed nil
// escapes into an error interface).
func asError(fe *FieldError) error {
	if fe == nil {
		return nil
	}
	return fe
}
