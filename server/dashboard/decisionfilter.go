package dashboard

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/watch"
)

// Query parameters of the decisions page and its stream besides
// filterParam (text the pod's namespace/name or the node contains).
const (
	typeParam = "type" // one kind of decision, as the page names it: Bind, Evict, ...
)

// decisionFilter is what the decision stream keeps: decisions of one kind
// (Type), of one profile, whose pod or node contains Text.
type decisionFilter struct {
	Type, Profile, Text string
	Types               []string // to choose from
	types               []berthv1.DecisionType
}

// Active says whether the filter leaves any decision out.
func (f decisionFilter) Active() bool { return f.Type != "" || f.Profile != "" || f.Text != "" }

// Query is the filter as the stream's query string, "" for none.
func (f decisionFilter) Query() string {
	q := url.Values{}
	for k, v := range map[string]string{typeParam: f.Type, profileParam: f.Profile, filterParam: f.Text} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// decisionTypes are the kinds of decision by name (Bind, ClearNomination,
// ...), in the API's order.
func decisionTypes() ([]string, []berthv1.DecisionType) {
	var values []berthv1.DecisionType
	for v := range berthv1.DecisionType_name {
		if v != int32(berthv1.DecisionType_DECISION_TYPE_UNSPECIFIED) {
			values = append(values, berthv1.DecisionType(v))
		}
	}
	slices.Sort(values)
	names := make([]string, len(values))
	for i, v := range values {
		names[i] = camelCase(strings.TrimPrefix(v.String(), "DECISION_TYPE_"))
	}
	return names, values
}

// parseDecisionFilter reads the filter of a decisions address.
func parseDecisionFilter(q url.Values) (decisionFilter, error) {
	f := decisionFilter{Type: q.Get(typeParam), Profile: strings.TrimSpace(q.Get(profileParam)), Text: strings.TrimSpace(q.Get(filterParam))}
	names, values := decisionTypes()
	f.Types = names
	if f.Type != "" {
		i := slices.Index(names, f.Type)
		if i < 0 {
			return f, fmt.Errorf("type=%s is not a kind of decision: use one of %s", f.Type, strings.Join(names, ", "))
		}
		f.types = values[i : i+1]
	}
	return f, nil
}

// logFilter is the part the decision log filters itself.
func (f decisionFilter) logFilter() watch.Filter {
	return watch.Filter{SchedulerName: f.Profile, Types: f.types}
}

// keeps says whether the stream sends ev: its pod or node contains Text.
func (f decisionFilter) keeps(ev decisionEvent) bool {
	return f.Text == "" || strings.Contains(ev.Namespace+"/"+ev.Name, f.Text) || strings.Contains(ev.Node, f.Text)
}
