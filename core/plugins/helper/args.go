package helper

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	kjson "sigs.k8s.io/json"
)

// ArgsError reports plugin args that do not decode or do not validate.
type ArgsError struct {
	Plugin string
	// Field is the JSON path of the offending field, e.g.
	// "scoringStrategy.resources[0].weight"; empty when the args as a whole
	// are at fault.
	Field string
	Err   error
}

func (e *ArgsError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s args: %v", e.Plugin, e.Err)
	}
	return fmt.Sprintf("%s args: %s: %v", e.Plugin, e.Field, e.Err)
}

func (e *ArgsError) Unwrap() error { return e.Err }

// InvalidArg returns an ArgsError for field with a formatted message.
func InvalidArg(plugin, field, format string, a ...any) *ArgsError {
	return &ArgsError{Plugin: plugin, Field: field, Err: fmt.Errorf(format, a...)}
}

// DecodeArgs decodes a plugin's raw args into out the way kube-scheduler
// decodes its configuration: field names are case-sensitive, and unknown or
// duplicate fields are errors. Empty args and JSON null leave out as it is,
// so the caller's defaults apply.
func DecodeArgs(plugin string, raw json.RawMessage, out any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	strict, err := kjson.UnmarshalStrict(raw, out)
	if err != nil {
		return &ArgsError{Plugin: plugin, Err: err}
	}
	if len(strict) == 0 {
		return nil
	}
	errs := make([]error, 0, len(strict))
	for _, e := range strict {
		ae := &ArgsError{Plugin: plugin, Err: e}
		var fe kjson.FieldError
		if errors.As(e, &fe) {
			ae.Field = fe.FieldPath()
		}
		errs = append(errs, ae)
	}
	return errors.Join(errs...)
}
