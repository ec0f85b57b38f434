package convert

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/berthsched/berth/core/fieldpath"
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
	return &FieldError{Path: fieldpath.Join(prefix, e.Path), Reason: e.Reason}
}

// Values in messages are clipped: an error must stay small enough for the
// client to receive it whatever the value refused (a 5 MB label value).
const (
	// maxQuoted is the most bytes of a value quoted in a message.
	maxQuoted = 64
	// maxPathKey is the most bytes of a map key in a field path; the
	// longest valid key (a qualified name, 317 bytes) is never clipped.
	maxPathKey = 320
)

// quote is v quoted for a message, its first maxQuoted bytes and its
// length when it is longer.
func quote(v string) string {
	if len(v) <= maxQuoted {
		return strconv.Quote(v)
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(Clip(v, maxQuoted)), len(v))
}

// Clip is s cut to at most max bytes, at a rune boundary, so that what is
// left stays valid UTF-8 when s is.
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// path is a proto field path under construction. It is a chain of
// segments, each on the stack of the function that adds it, and becomes a
// string only for an error: converting a valid object builds no paths.
// Methods adding a segment point the new path at the receiver, so a path
// must not outlive the variable it extends (never store one).
type path struct {
	parent *path
	name   string // the field name, the map key, or the root's text
	idx    int
	kind   segment
}

type segment uint8

const (
	segRoot segment = iota
	segField
	segIndex
	segKey
)

// rootPath is a path starting with text (a path string, possibly empty).
func rootPath(text string) path { return path{name: text} }

// field is the path of a sub-field.
func (p *path) field(name string) path { return path{parent: p, name: name, kind: segField} }

// index is the path of a list element.
func (p *path) index(i int) path { return path{parent: p, idx: i, kind: segIndex} }

// key is the path of a map entry.
func (p *path) key(k string) path { return path{parent: p, name: k, kind: segKey} }

// String renders the path: fields joined by ".", indexes and keys in
// brackets ("containers[1].requests[cpu]").
func (p path) String() string { return string(p.appendTo(nil)) }

func (p *path) appendTo(b []byte) []byte {
	if p.parent != nil {
		b = p.parent.appendTo(b)
	}
	switch p.kind {
	case segRoot:
		b = append(b, p.name...)
	case segField:
		if len(b) > 0 {
			b = append(b, '.')
		}
		b = append(b, p.name...)
	case segIndex:
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(p.idx), 10)
		b = append(b, ']')
	case segKey:
		b = append(b, '[')
		if len(p.name) > maxPathKey {
			b = fmt.Appendf(b, "%s... (%d bytes)", Clip(p.name, maxQuoted), len(p.name))
		} else {
			b = append(b, p.name...)
		}
		b = append(b, ']')
	}
	return b
}

func (p path) errorf(format string, args ...any) *FieldError {
	return &FieldError{Path: p.String(), Reason: fmt.Sprintf(format, args...)}
}

// asError returns fe as an error, nil when fe is nil (so no typed nil
// escapes into an error interface).
func asError(fe *FieldError) error {
	if fe == nil {
		return nil
	}
	return fe
}
