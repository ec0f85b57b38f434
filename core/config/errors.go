package config

import (
	"errors"
	"fmt"
)

// Kinds of configuration errors, for errors.Is.
var (
	// ErrDecode: the document is not a well-formed
	// kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration (syntax,
	// wrong type, unknown or duplicate field, wrong apiVersion or kind).
	ErrDecode = errors.New("invalid KubeSchedulerConfiguration document")
	// ErrUnknownPlugin: a plugin name Berth does not know.
	ErrUnknownPlugin = errors.New("unknown plugin")
	// ErrNotImplemented: a kube-scheduler feature Berth deliberately leaves
	// out (a plugin that only makes sense inside Kubernetes, extenders).
	ErrNotImplemented = errors.New("not implemented by Berth")
	// ErrInvalid: a value out of range or inconsistent with another.
	ErrInvalid = errors.New("invalid value")
	// ErrDuplicate: a name given twice where it must be unique.
	ErrDuplicate = errors.New("duplicate value")
	// ErrRequired: a value that must be set.
	ErrRequired = errors.New("required value")
)

// FieldError is an error at one field of the configuration. Path is the
// field's JSON path, e.g. "profiles[0].plugins.score.enabled[1].weight".
type FieldError struct {
	Path string
	Kind error // one of the Err* kinds
	Msg  string
}

func (e *FieldError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("%v: %s", e.Kind, e.Msg)
	}
	return fmt.Sprintf("%s: %v: %s", e.Path, e.Kind, e.Msg)
}

// Unwrap returns the kind.
func (e *FieldError) Unwrap() error { return e.Kind }

// fieldErrs collects FieldErrors.
type fieldErrs []error

func (f *fieldErrs) add(path string, kind error, format string, a ...any) {
	*f = append(*f, &FieldError{Path: path, Kind: kind, Msg: fmt.Sprintf(format, a...)})
}

func (f fieldErrs) join() error { return errors.Join(f...) }
