package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/timestamppb"
	"sigs.k8s.io/yaml"
)

// jsonShape says what -o json prints for get and explain; it is part of
// berthctl's interface (see getCommand and explainCommand).
const jsonShape = `The JSON is the API's response message with its proto field names
(snake_case), indented. Every field is present: zero numbers, false, "",
[] and {} included, and null for an unset message, timestamp or optional
field. Integers,
64-bit ones included, are JSON numbers; enums are their names
("QUEUE_STATE_BACKOFF"); timestamps are RFC 3339 strings in UTC.`

// writeJSON prints m as jsonShape describes.
func writeJSON(w io.Writer, m proto.Message) error {
	b, err := json.MarshalIndent(jsonValue(m.ProtoReflect()), "", "  ")
	if err != nil {
		return failedf("encoding: %w", err)
	}
	if _, err := fmt.Fprintln(w, string(b)); err != nil {
		return failedf("writing: %w", err)
	}
	return nil
}

// writeStructured prints m as JSON (writeJSON) or, for "yaml", as the
// same document in YAML.
func writeStructured(w io.Writer, format string, m proto.Message) error {
	if format != "yaml" {
		return writeJSON(w, m)
	}
	j, err := json.Marshal(jsonValue(m.ProtoReflect()))
	if err == nil {
		j, err = yaml.JSONToYAML(j)
	}
	if err != nil {
		return failedf("encoding: %w", err)
	}
	if _, err := w.Write(j); err != nil {
		return failedf("writing: %w", err)
	}
	return nil
}

// jsonValue is a message as a JSON object with every field present.
func jsonValue(m protoreflect.Message) any {
	if !m.IsValid() {
		return nil
	}
	if ts, ok := m.Interface().(*timestamppb.Timestamp); ok {
		return ts.AsTime().UTC().Format(time.RFC3339Nano)
	}
	out := map[string]any{}
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.ContainingOneof() != nil && !fd.ContainingOneof().IsSynthetic() && !m.Has(fd) {
			continue // only the member of a oneof that is set
		}
		v := m.Get(fd)
		switch {
		case fd.IsList():
			l := v.List()
			items := make([]any, l.Len())
			for j := range l.Len() {
				items[j] = scalarJSON(fd, l.Get(j))
			}
			out[string(fd.Name())] = items
		case fd.IsMap():
			entries := map[string]any{}
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				entries[k.String()] = scalarJSON(fd.MapValue(), mv)
				return true
			})
			out[string(fd.Name())] = entries
		case fd.Message() != nil && !m.Has(fd):
			out[string(fd.Name())] = nil
		case fd.HasOptionalKeyword() && !m.Has(fd):
			// An unset optional field means something else than its zero
			// (an unlimited borrowing_limit, not 0).
			out[string(fd.Name())] = nil
		default:
			out[string(fd.Name())] = scalarJSON(fd, v)
		}
	}
	return out
}

// scalarJSON is one value of field fd (an element, for lists and maps).
func scalarJSON(fd protoreflect.FieldDescriptor, v protoreflect.Value) any {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return jsonValue(v.Message())
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
		return int32(v.Enum())
	case protoreflect.BytesKind:
		return v.Bytes()
	}
	return v.Interface() // bool, string, integers, floats
}
