package model

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strconv"
)

// LabelSelectorOperator is the operator of a label selector requirement.
type LabelSelectorOperator string

const (
	LabelSelectorOpIn           LabelSelectorOperator = "In"
	LabelSelectorOpNotIn        LabelSelectorOperator = "NotIn"
	LabelSelectorOpExists       LabelSelectorOperator = "Exists"
	LabelSelectorOpDoesNotExist LabelSelectorOperator = "DoesNotExist"
)

// LabelSelector is the Kubernetes metav1.LabelSelector: every MatchLabels
// pair and every expression must hold.
type LabelSelector struct {
	MatchLabels      map[string]string
	MatchExpressions []LabelSelectorRequirement
}

// LabelSelectorRequirement is one expression of a LabelSelector.
type LabelSelectorRequirement struct {
	Key      string
	Operator LabelSelectorOperator
	Values   []string
}

// Selector is a compiled LabelSelector. The zero value matches nothing; use
// Everything for a selector that matches every label set.
type Selector struct {
	valid bool
	reqs  []requirement // sorted by key for stable output
}

type requirement struct {
	key    string
	op     LabelSelectorOperator
	values []string // sorted
}

// Everything returns a selector that matches every label set.
func Everything() Selector { return Selector{valid: true} }

// Nothing returns a selector that matches no label set.
func Nothing() Selector { return Selector{} }

// Compile turns a LabelSelector into a Selector. A nil selector matches
// nothing and an empty one matches everything, as in Kubernetes.
func (ls *LabelSelector) Compile() (Selector, error) {
	if ls == nil {
		return Nothing(), nil
	}
	s := Selector{valid: true}
	for k, v := range ls.MatchLabels {
		s.reqs = append(s.reqs, requirement{key: k, op: LabelSelectorOpIn, values: []string{v}})
	}
	for i, e := range ls.MatchExpressions {
		r := requirement{key: e.Key, op: e.Operator, values: slices.Clone(e.Values)}
		switch e.Operator {
		case LabelSelectorOpIn, LabelSelectorOpNotIn:
			if len(e.Values) == 0 {
				return Nothing(), fmt.Errorf("matchExpressions[%d]: operator %s needs at least one value", i, e.Operator)
			}
		case LabelSelectorOpExists, LabelSelectorOpDoesNotExist:
			if len(e.Values) != 0 {
				return Nothing(), fmt.Errorf("matchExpressions[%d]: operator %s takes no values", i, e.Operator)
			}
		default:
			return Nothing(), fmt.Errorf("matchExpressions[%d]: unknown operator %q", i, e.Operator)
		}
		if e.Key == "" {
			return Nothing(), fmt.Errorf("matchExpressions[%d]: key must not be empty", i)
		}
		sort.Strings(r.values)
		s.reqs = append(s.reqs, r)
	}
	sort.SliceStable(s.reqs, func(i, j int) bool { return s.reqs[i].key < s.reqs[j].key })
	return s, nil
}

// MustCompile is Compile for selectors known to be valid (tests, literals).
func (ls *LabelSelector) MustCompile() Selector {
	s, err := ls.Compile()
	if err != nil {
		panic(err)
	}
	return s
}

// SelectorFromSet returns a selector requiring every pair of set.
func SelectorFromSet(set map[string]string) Selector {
	return (&LabelSelector{MatchLabels: set}).MustCompile()
}

// Matches reports whether labels satisfy the selector.
func (s Selector) Matches(labels map[string]string) bool {
	if !s.valid {
		return false
	}
	for i := range s.reqs {
		if !s.reqs[i].matches(labels) {
			return false
		}
	}
	return true
}

// IsNothing reports whether the selector can match no label set by
// construction (a nil LabelSelector).
func (s Selector) IsNothing() bool { return !s.valid }

// IsEverything reports whether the selector matches every label set.
func (s Selector) IsEverything() bool { return s.valid && len(s.reqs) == 0 }

// AddIn returns a copy of s with one more "key In (values)" requirement.
func (s Selector) AddIn(key string, values ...string) Selector {
	return s.add(requirement{key: key, op: LabelSelectorOpIn, values: values})
}

// AddNotIn returns a copy of s with one more "key NotIn (values)" requirement.
func (s Selector) AddNotIn(key string, values ...string) Selector {
	return s.add(requirement{key: key, op: LabelSelectorOpNotIn, values: values})
}

// And returns a selector that requires both s and o: their requirements
// together. Nothing stays Nothing.
func (s Selector) And(o Selector) Selector {
	if !s.valid || !o.valid {
		return Nothing()
	}
	if len(o.reqs) == 0 {
		return s
	}
	reqs := make([]requirement, 0, len(s.reqs)+len(o.reqs))
	reqs = append(reqs, s.reqs...)
	reqs = append(reqs, o.reqs...)
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].key < reqs[j].key })
	return Selector{valid: true, reqs: reqs}
}

func (s Selector) add(r requirement) Selector {
	if !s.valid {
		return s
	}
	r.values = slices.Clone(r.values)
	sort.Strings(r.values)
	reqs := make([]requirement, 0, len(s.reqs)+1)
	reqs = append(reqs, s.reqs...)
	reqs = append(reqs, r)
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].key < reqs[j].key })
	return Selector{valid: true, reqs: reqs}
}

// String renders the selector like Kubernetes does ("app=web,tier in (a,b)").
func (s Selector) String() string {
	if !s.valid {
		return "<none>"
	}
	out := ""
	for i, r := range s.reqs {
		if i > 0 {
			out += ","
		}
		switch r.op {
		case LabelSelectorOpIn:
			if len(r.values) == 1 {
				out += r.key + "=" + r.values[0]
			} else {
				out += r.key + " in (" + joinComma(r.values) + ")"
			}
		case LabelSelectorOpNotIn:
			out += r.key + " notin (" + joinComma(r.values) + ")"
		case LabelSelectorOpExists:
			out += r.key
		case LabelSelectorOpDoesNotExist:
			out += "!" + r.key
		}
	}
	return out
}

func joinComma(vs []string) string {
	out := ""
	for i, v := range vs {
		if i > 0 {
			out += ","
		}
		out += v
	}
	return out
}

func (r *requirement) matches(labels map[string]string) bool {
	v, ok := labels[r.key]
	switch r.op {
	case LabelSelectorOpIn:
		return ok && containsSorted(r.values, v)
	case LabelSelectorOpNotIn:
		return !ok || !containsSorted(r.values, v)
	case LabelSelectorOpExists:
		return ok
	case LabelSelectorOpDoesNotExist:
		return !ok
	}
	return false
}

func containsSorted(values []string, v string) bool {
	if len(values) < 8 {
		return slices.Contains(values, v)
	}
	_, found := slices.BinarySearch(values, v)
	return found
}

// NodeSelectorOperator is the operator of a node selector requirement.
type NodeSelectorOperator string

const (
	NodeSelectorOpIn           NodeSelectorOperator = "In"
	NodeSelectorOpNotIn        NodeSelectorOperator = "NotIn"
	NodeSelectorOpExists       NodeSelectorOperator = "Exists"
	NodeSelectorOpDoesNotExist NodeSelectorOperator = "DoesNotExist"
	NodeSelectorOpGt           NodeSelectorOperator = "Gt"
	NodeSelectorOpLt           NodeSelectorOperator = "Lt"
)

// NodeFieldName is the only field MatchFields may name.
const NodeFieldName = "metadata.name"

// NodeSelector is a node affinity's required part: the terms are ORed.
type NodeSelector struct {
	Terms []NodeSelectorTerm
}

// NodeSelectorTerm ANDs its expressions (on labels) and fields (on the node
// name). A term with neither matches no node.
type NodeSelectorTerm struct {
	MatchExpressions []NodeSelectorRequirement
	MatchFields      []NodeSelectorRequirement
}

// NodeSelectorRequirement is one expression of a NodeSelectorTerm. Gt and Lt
// take a single integer value and compare it with the label parsed as one.
type NodeSelectorRequirement struct {
	Key      string
	Operator NodeSelectorOperator
	Values   []string
}

// Validate reports the first problem with the term, naming the field.
func (t *NodeSelectorTerm) Validate() error {
	for i, r := range t.MatchExpressions {
		if err := r.validate(); err != nil {
			return fmt.Errorf("matchExpressions[%d]: %w", i, err)
		}
	}
	for i, r := range t.MatchFields {
		if r.Key != NodeFieldName {
			return fmt.Errorf("matchFields[%d].key: only %q is supported, got %q", i, NodeFieldName, r.Key)
		}
		if r.Operator != NodeSelectorOpIn && r.Operator != NodeSelectorOpNotIn {
			return fmt.Errorf("matchFields[%d].operator: only In and NotIn are supported, got %q", i, r.Operator)
		}
		if len(r.Values) != 1 {
			return fmt.Errorf("matchFields[%d].values: must have exactly one value", i)
		}
	}
	return nil
}

func (r NodeSelectorRequirement) validate() error {
	if r.Key == "" {
		return fmt.Errorf("key must not be empty")
	}
	switch r.Operator {
	case NodeSelectorOpIn, NodeSelectorOpNotIn:
		if len(r.Values) == 0 {
			return fmt.Errorf("operator %s needs at least one value", r.Operator)
		}
	case NodeSelectorOpExists, NodeSelectorOpDoesNotExist:
		if len(r.Values) != 0 {
			return fmt.Errorf("operator %s takes no values", r.Operator)
		}
	case NodeSelectorOpGt, NodeSelectorOpLt:
		if len(r.Values) != 1 {
			return fmt.Errorf("operator %s needs exactly one value", r.Operator)
		}
		if _, err := strconv.ParseInt(r.Values[0], 10, 64); err != nil {
			return fmt.Errorf("operator %s needs an integer value, got %q", r.Operator, r.Values[0])
		}
	default:
		return fmt.Errorf("unknown operator %q", r.Operator)
	}
	return nil
}

// Matches reports whether any term matches the node.
func (s *NodeSelector) Matches(node *Node) bool {
	for i := range s.Terms {
		if s.Terms[i].Matches(node) {
			return true
		}
	}
	return false
}

// Matches reports whether the term matches the node.
func (t *NodeSelectorTerm) Matches(node *Node) bool {
	if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
		return false
	}
	for i := range t.MatchExpressions {
		if !t.MatchExpressions[i].matchesLabels(node.Labels) {
			return false
		}
	}
	for i := range t.MatchFields {
		r := &t.MatchFields[i]
		in := len(r.Values) == 1 && r.Values[0] == node.Name
		if r.Key != NodeFieldName || (r.Operator == NodeSelectorOpIn) != in {
			return false
		}
	}
	return true
}

func (r *NodeSelectorRequirement) matchesLabels(labels map[string]string) bool {
	v, ok := labels[r.Key]
	switch r.Operator {
	case NodeSelectorOpIn:
		return ok && slices.Contains(r.Values, v)
	case NodeSelectorOpNotIn:
		return !ok || !slices.Contains(r.Values, v)
	case NodeSelectorOpExists:
		return ok
	case NodeSelectorOpDoesNotExist:
		return !ok
	case NodeSelectorOpGt, NodeSelectorOpLt:
		if !ok || len(r.Values) != 1 {
			return false
		}
		have, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return false
		}
		want, err := strconv.ParseInt(r.Values[0], 10, 64)
		if err != nil {
			return false
		}
		if r.Operator == NodeSelectorOpGt {
			return have > want
		}
		return have < want
	}
	return false
}

// AppendKey appends an exact encoding of the selector to b: two selectors
// encode alike only if they match the same label sets the same way.
func (s Selector) AppendKey(b []byte) []byte {
	if !s.valid {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(len(s.reqs)))
	for _, r := range s.reqs {
		b = appendString(b, r.key)
		b = appendString(b, string(r.op))
		b = binary.AppendUvarint(b, uint64(len(r.values)))
		for _, v := range r.values {
			b = appendString(b, v)
		}
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
