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
// unknown fields, trailing data, a missing node.nodeName and pods without a
// name or namespace are errors naming the field.
func DecodeSummary(data []byte) (*statsv1.Summary, error) {
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
