package framework

import (
	"errors"
	"strings"
)

// Code is the outcome of a plugin call. The codes carry meaning for the
// queue and for preemption, so plugins must pick them with care.
type Code int

const (
	// Success: the plugin has no objection.
	Success Code = iota
	// Error: an internal error; the pod is retried after backoff.
	Error
	// Unschedulable: the pod does not fit now; preemption may help.
	Unschedulable
	// UnschedulableAndUnresolvable: the pod does not fit and preemption on
	// this node cannot help.
	UnschedulableAndUnresolvable
	// Wait: a Permit plugin holds the pod until it is allowed or rejected.
	Wait
	// Skip: the plugin has nothing to do for this pod (PreFilter, PreScore,
	// Bind); the runtime skips its later points.
	Skip
	// Pending: the pod waits for something outside the scheduler; it is not
	// retried on a timer, only on an event.
	Pending
)

var codeNames = [...]string{"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip", "Pending"}

func (c Code) String() string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return "Unknown"
}

// Status is a plugin's answer. A nil *Status means Success.
type Status struct {
	code    Code
	reasons []string
	err     error
	plugin  string
}

// NewStatus returns a status with the code and reasons.
func NewStatus(code Code, reasons ...string) *Status {
	return &Status{code: code, reasons: reasons}
}

// AsStatus wraps an error as an Error status; nil gives nil.
func AsStatus(err error) *Status {
	if err == nil {
		return nil
	}
	return &Status{code: Error, reasons: []string{err.Error()}, err: err}
}

// Code returns the code; a nil status is Success.
func (s *Status) Code() Code {
	if s == nil {
		return Success
	}
	return s.code
}

// IsSuccess reports whether the status is Success.
func (s *Status) IsSuccess() bool { return s.Code() == Success }

// IsWait reports whether the status is Wait.
func (s *Status) IsWait() bool { return s.Code() == Wait }

// IsSkip reports whether the status is Skip.
func (s *Status) IsSkip() bool { return s.Code() == Skip }

// IsRejected reports whether the pod was rejected: Unschedulable,
// UnschedulableAndUnresolvable or Pending.
func (s *Status) IsRejected() bool {
	c := s.Code()
	return c == Unschedulable || c == UnschedulableAndUnresolvable || c == Pending
}

// Reasons returns the reasons, for per-node diagnosis.
func (s *Status) Reasons() []string {
	if s == nil {
		return nil
	}
	if s.err != nil && len(s.reasons) == 0 {
		return []string{s.err.Error()}
	}
	return s.reasons
}

// Message joins the reasons with ", ".
func (s *Status) Message() string {
	if s == nil {
		return ""
	}
	return strings.Join(s.Reasons(), ", ")
}

// AppendReason adds a reason.
func (s *Status) AppendReason(reason string) { s.reasons = append(s.reasons, reason) }

// Plugin returns the name of the plugin that produced the status.
func (s *Status) Plugin() string {
	if s == nil {
		return ""
	}
	return s.plugin
}

// WithPlugin records the plugin that produced the status and returns s.
func (s *Status) WithPlugin(name string) *Status {
	if s != nil {
		s.plugin = name
	}
	return s
}

// AsError returns the status as an error, nil on Success.
func (s *Status) AsError() error {
	if s.IsSuccess() {
		return nil
	}
	if s.err != nil {
		return s.err
	}
	return errors.New(s.Message())
}

// Err returns the wrapped error of an Error status, if any.
func (s *Status) Err() error {
	if s == nil {
		return nil
	}
	return s.err
}

// Equal reports whether two statuses have the same code, reasons and plugin.
func (s *Status) Equal(o *Status) bool {
	if s == nil || o == nil {
		return s.IsSuccess() && o.IsSuccess()
	}
	if s.code != o.code || s.plugin != o.plugin || len(s.reasons) != len(o.reasons) {
		return false
	}
	for i := range s.reasons {
		if s.reasons[i] != o.reasons[i] {
			return false
		}
	}
	return true
}

func (s *Status) String() string {
	if s == nil {
		return "Success"
	}
	out := s.code.String()
	if s.plugin != "" {
		out += " from " + s.plugin
	}
	if m := s.Message(); m != "" {
		out += ": " + m
	}
	return out
}
