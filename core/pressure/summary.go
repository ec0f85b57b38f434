package pressure

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	statsv1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
)

// DecodeSummary reads a kubelet Summary (stats/v1alpha1, JSON) strictly:
// unknown fields, a key repeated in an object, trailing data, a missing
// node.nodeName and pods without a name or namespace are errors naming the
// field.
func DecodeSummary(data []byte) (*statsv1.Summary, error) {
	if err := uniqueKeys(data); err != nil {
		return nil, fmt.Errorf("summary: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s statsv1.Summary
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("summary: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("summary: data after the Summary object")
	}
	if s.Node.NodeName == "" {
		return nil, errors.New("summary: node.nodeName: required")
	}
	seen := map[string]int{}
	for i, p := range s.Pods {
		if p.PodRef.Name == "" || p.PodRef.Namespace == "" {
			return nil, fmt.Errorf("summary: pods[%d].podRef: name and namespace are required", i)
		}
		key := p.PodRef.Namespace + "/" + p.PodRef.Name
		if j, dup := seen[key]; dup {
			return nil, fmt.Errorf("summary: pods[%d].podRef: %s already reported in pods[%d]", i, key, j)
		}
		seen[key] = i
	}
	if r := s.Node.Rlimit; r != nil && r.MaxPID != nil && r.NumOfRunningProcesses != nil && *r.MaxPID <= 0 {
		return nil, fmt.Errorf("summary: node.rlimit.maxpid: %d is not positive", *r.MaxPID)
	}
	return &s, nil
}

// uniqueKeys refuses JSON in which an object repeats a key, naming its
// path: encoding/json keeps the last value, so a report holding two
// summaries of a node (or two memory stats) would apply one silently.
// Malformed JSON, and JSON nested deeper than encoding/json accepts, are
// left to the decoder. One pass, linear in data.
func uniqueKeys(data []byte) error {
	err := uniqueKeysIn(json.NewDecoder(bytes.NewReader(data)), "", 0)
	var dup *duplicateKeyError
	if errors.As(err, &dup) {
		return err
	}
	return nil
}

// maxJSONDepth is encoding/json's own nesting limit.
const maxJSONDepth = 10000

type duplicateKeyError struct{ path string }

func (e *duplicateKeyError) Error() string {
	return fmt.Sprintf("key %q appears twice in one object", e.path)
}

// uniqueKeysIn reads one value at path from dec.
func uniqueKeysIn(dec *json.Decoder, path string, depth int) error {
	if depth > maxJSONDepth {
		return errors.New("too deep")
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		keys := map[string]bool{}
		for dec.More() {
			ktok, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := ktok.(string)
			p := key
			if path != "" {
				p = path + "." + key
			}
			if keys[key] {
				return &duplicateKeyError{path: p}
			}
			keys[key] = true
			if err := uniqueKeysIn(dec, p, depth+1); err != nil {
				return err
			}
		}
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := uniqueKeysIn(dec, fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
				return err
			}
		}
	default:
		return nil
	}
	_, err = dec.Token() // the closing delimiter
	return err
}
