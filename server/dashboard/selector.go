package dashboard

import (
	"fmt"
	"strings"

	"github.com/berthsched/berth/core/model"
)

// parseSelector reads a label selector as kubectl -l takes it:
// requirements separated by commas, each "key=value" ("key==value"),
// "key!=value", "key", "!key", "key in (a,b)" or "key notin (a,b)".
// Empty selects everything.
func parseSelector(s string) (model.Selector, error) {
	ls := &model.LabelSelector{}
	for _, req := range splitRequirements(s) {
		r, err := parseRequirement(req)
		if err != nil {
			return model.Nothing(), err
		}
		ls.MatchExpressions = append(ls.MatchExpressions, r)
	}
	return ls.Compile()
}

// splitRequirements splits at the commas outside parentheses.
func splitRequirements(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	out = append(out, s[start:])
	kept := out[:0]
	for _, r := range out {
		if r = strings.TrimSpace(r); r != "" {
			kept = append(kept, r)
		}
	}
	return kept
}

func parseRequirement(req string) (model.LabelSelectorRequirement, error) {
	if key, ok := strings.CutPrefix(req, "!"); ok {
		return requirement(req, strings.TrimSpace(key), model.LabelSelectorOpDoesNotExist, nil)
	}
	if key, value, ok := strings.Cut(req, "!="); ok {
		return requirement(req, key, model.LabelSelectorOpNotIn, []string{value})
	}
	if key, value, ok := strings.Cut(req, "=="); ok {
		return requirement(req, key, model.LabelSelectorOpIn, []string{value})
	}
	if key, value, ok := strings.Cut(req, "="); ok {
		return requirement(req, key, model.LabelSelectorOpIn, []string{value})
	}
	fields := strings.Fields(req)
	if len(fields) == 1 {
		return requirement(req, fields[0], model.LabelSelectorOpExists, nil)
	}
	if len(fields) >= 2 {
		op := map[string]model.LabelSelectorOperator{"in": model.LabelSelectorOpIn, "notin": model.LabelSelectorOpNotIn}[fields[1]]
		rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(req[len(fields[0]):]), fields[1]))
		if op != "" && strings.HasPrefix(rest, "(") && strings.HasSuffix(rest, ")") {
			var values []string
			for v := range strings.SplitSeq(rest[1:len(rest)-1], ",") {
				if v = strings.TrimSpace(v); v != "" {
					values = append(values, v)
				}
			}
			if len(values) == 0 {
				return model.LabelSelectorRequirement{}, fmt.Errorf("%q: %s needs at least one value", req, fields[1])
			}
			return requirement(req, fields[0], op, values)
		}
	}
	return model.LabelSelectorRequirement{}, fmt.Errorf("%q is not a requirement: write key=value, key!=value, key, !key, key in (a,b) or key notin (a,b)", req)
}

func requirement(req, key string, op model.LabelSelectorOperator, values []string) (model.LabelSelectorRequirement, error) {
	key = strings.TrimSpace(key)
	if key == "" || strings.ContainsAny(key, " ()!=,") {
		return model.LabelSelectorRequirement{}, fmt.Errorf("%q: %q is not a label key", req, key)
	}
	for i, v := range values {
		values[i] = strings.TrimSpace(v)
		if strings.ContainsAny(values[i], " ()!=,") {
			return model.LabelSelectorRequirement{}, fmt.Errorf("%q: %q is not a label value", req, values[i])
		}
	}
	return model.LabelSelectorRequirement{Key: key, Operator: op, Values: values}, nil
}
