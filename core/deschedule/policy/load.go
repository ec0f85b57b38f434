package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/berthsched/berth/core/model"
)

// APIVersion and Kind are what a policy document must say.
const (
	APIVersion = "descheduler/v1alpha2"
	Kind       = "DeschedulerPolicy"
)

// FieldError says what is wrong with a policy, and where.
type FieldError struct {
	Field string // "profiles[0].pluginConfig[1].args.thresholds"
	Err   error
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Err.Error()
	}
	return e.Field + ": " + e.Err.Error()
}

func (e *FieldError) Unwrap() error { return e.Err }

// ErrUnsupported is wrapped by errors about parts of the Descheduler's
// policy Berth does not run.
var ErrUnsupported = errors.New("not supported by Berth")

// PriorityClasses resolves a priorityThreshold's class name.
type PriorityClasses interface {
	PriorityClassValue(name string) (int32, bool)
}

// ClassList is a PriorityClasses over a list.
type ClassList []*model.PriorityClass

// PriorityClassValue returns the value of the class named name.
func (l ClassList) PriorityClassValue(name string) (int32, bool) {
	for _, c := range l {
		if c.Name == name {
			return c.Value, true
		}
	}
	return 0, false
}

// LoadFile reads and decodes a policy file.
func LoadFile(path string, classes PriorityClasses) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the descheduler policy: %w", err)
	}
	return Decode(data, classes)
}

// The documents as written.
type rawPolicy struct {
	APIVersion                       string          `json:"apiVersion"`
	Kind                             string          `json:"kind"`
	Profiles                         []rawProfile    `json:"profiles,omitempty"`
	NodeSelector                     *string         `json:"nodeSelector,omitempty"`
	MaxNoOfPodsToEvictPerNode        *uint           `json:"maxNoOfPodsToEvictPerNode,omitempty"`
	MaxNoOfPodsToEvictPerNamespace   *uint           `json:"maxNoOfPodsToEvictPerNamespace,omitempty"`
	MaxNoOfPodsToEvictTotal          *uint           `json:"maxNoOfPodsToEvictTotal,omitempty"`
	EvictionFailureEventNotification *bool           `json:"evictionFailureEventNotification,omitempty"`
	MetricsCollector                 json.RawMessage `json:"metricsCollector,omitempty"`
	MetricsProviders                 json.RawMessage `json:"metricsProviders,omitempty"`
	Prometheus                       json.RawMessage `json:"prometheus,omitempty"`
	GracePeriodSeconds               *int64          `json:"gracePeriodSeconds,omitempty"`
	DeschedulingInterval             string          `json:"deschedulingInterval,omitempty"`
}

type rawProfile struct {
	Name          string            `json:"name"`
	PluginConfigs []rawPluginConfig `json:"pluginConfig"`
	Plugins       rawPlugins        `json:"plugins"`
}

type rawPluginConfig struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type rawPlugins struct {
	PreSort           rawPluginSet `json:"presort"`
	Sort              rawPluginSet `json:"sort"`
	Deschedule        rawPluginSet `json:"deschedule"`
	Balance           rawPluginSet `json:"balance"`
	Filter            rawPluginSet `json:"filter"`
	PreEvictionFilter rawPluginSet `json:"preevictionfilter"`
}

type rawPluginSet struct {
	Enabled  []string `json:"enabled"`
	Disabled []string `json:"disabled"`
}

// extension is what a plugin can be enabled at.
type extension uint8

const (
	atDeschedule extension = 1 << iota
	atBalance
	atFilter
)

// plugin says where the Descheduler's plugin name plugs in and whether
// Berth runs it; ok is false for a name the Descheduler does not know.
func plugin(name string) (at extension, supported, ok bool) {
	switch name {
	case DefaultEvictor:
		return atFilter, true, true
	case LowNodeUtilization, HighNodeUtilization, RemoveDuplicates, RemovePodsViolatingTopologySpreadConstraint:
		return atBalance, true, true
	case RemovePodsViolatingInterPodAntiAffinity, RemovePodsViolatingNodeAffinity, RemovePodsViolatingNodeTaints,
		RemovePodsHavingTooManyRestarts, PodLifeTime:
		return atDeschedule, true, true
	case RemoveFailedPods:
		return atDeschedule, false, true
	}
	return 0, false, false
}

// Decode reads a policy document (YAML or JSON).
func Decode(data []byte, classes PriorityClasses) (*Policy, error) {
	var raw rawPolicy
	if err := strictYAML(data, &raw); err != nil {
		return nil, &FieldError{Err: fmt.Errorf("decoding the descheduler policy: %w", err)}
	}
	if raw.APIVersion != APIVersion {
		return nil, &FieldError{Field: "apiVersion", Err: fmt.Errorf("is %q, want %q", raw.APIVersion, APIVersion)}
	}
	if raw.Kind != Kind {
		return nil, &FieldError{Field: "kind", Err: fmt.Errorf("is %q, want %q", raw.Kind, Kind)}
	}
	for field, v := range map[string]json.RawMessage{"metricsCollector": raw.MetricsCollector, "metricsProviders": raw.MetricsProviders, "prometheus": raw.Prometheus} {
		if len(v) > 0 && string(v) != "null" {
			return nil, &FieldError{Field: field, Err: fmt.Errorf("metrics-based utilization is %w: utilization is request-based", ErrUnsupported)}
		}
	}
	out := &Policy{
		MaxPodsToEvictPerNode:      raw.MaxNoOfPodsToEvictPerNode,
		MaxPodsToEvictPerNamespace: raw.MaxNoOfPodsToEvictPerNamespace,
		MaxPodsToEvictTotal:        raw.MaxNoOfPodsToEvictTotal,
		GracePeriodSeconds:         raw.GracePeriodSeconds,
	}
	if raw.GracePeriodSeconds != nil && *raw.GracePeriodSeconds < 0 {
		return nil, &FieldError{Field: "gracePeriodSeconds", Err: fmt.Errorf("must be at least 0, not %d", *raw.GracePeriodSeconds)}
	}
	if raw.DeschedulingInterval != "" {
		d, err := time.ParseDuration(raw.DeschedulingInterval)
		if err != nil || d < 0 {
			return nil, &FieldError{Field: "deschedulingInterval", Err: fmt.Errorf("%q is not a duration of at least 0 (\"5m\")", raw.DeschedulingInterval)}
		}
		out.Interval = d
	}
	if raw.NodeSelector != nil {
		sel, err := ParseSelector(*raw.NodeSelector)
		if err != nil {
			return nil, &FieldError{Field: "nodeSelector", Err: err}
		}
		out.NodeSelector = sel
	}
	for i, rp := range raw.Profiles {
		p, err := profile(fmt.Sprintf("profiles[%d]", i), rp, classes)
		if err != nil {
			return nil, err
		}
		out.Profiles = append(out.Profiles, p)
	}
	return out, nil
}

func profile(at string, rp rawProfile, classes PriorityClasses) (Profile, error) {
	p := Profile{Name: rp.Name}
	args := map[string]any{}
	for j, pc := range rp.PluginConfigs {
		field := fmt.Sprintf("%s.pluginConfig[%d]", at, j)
		_, supported, ok := plugin(pc.Name)
		if !ok {
			return p, &FieldError{Field: field + ".name", Err: fmt.Errorf("plugin %q is not registered", pc.Name)}
		}
		if !supported {
			return p, &FieldError{Field: field + ".name", Err: fmt.Errorf("plugin %q is %w", pc.Name, ErrUnsupported)}
		}
		if _, dup := args[pc.Name]; dup {
			return p, &FieldError{Field: field + ".name", Err: fmt.Errorf("plugin %q is configured twice", pc.Name)}
		}
		a, err := pluginArgs(pc.Name, pc.Args, classes)
		if err != nil {
			var fe *FieldError
			if errors.As(err, &fe) {
				fe.Field = joinField(field+".args", fe.Field)
				return p, fe
			}
			return p, &FieldError{Field: field + ".args", Err: err}
		}
		args[pc.Name] = a
	}
	if _, ok := args[DefaultEvictor]; !ok {
		a, err := pluginArgs(DefaultEvictor, nil, classes)
		if err != nil {
			return p, &FieldError{Field: at, Err: err}
		}
		args[DefaultEvictor] = a
	}
	p.Evictor = *args[DefaultEvictor].(*EvictorArgs)
	sets := []struct {
		name string
		set  rawPluginSet
		at   extension
		out  *[]Strategy
	}{
		{"deschedule", rp.Plugins.Deschedule, atDeschedule, &p.Deschedule},
		{"balance", rp.Plugins.Balance, atBalance, &p.Balance},
		{"filter", rp.Plugins.Filter, atFilter, nil},
		{"preevictionfilter", rp.Plugins.PreEvictionFilter, atFilter, nil},
		{"sort", rp.Plugins.Sort, 0, nil},
		{"presort", rp.Plugins.PreSort, 0, nil},
	}
	for _, s := range sets {
		for j, name := range s.set.Enabled {
			field := fmt.Sprintf("%s.plugins.%s.enabled[%d]", at, s.name, j)
			pat, supported, ok := plugin(name)
			if !ok || pat&s.at == 0 {
				return p, &FieldError{Field: field, Err: fmt.Errorf("%q is not a %s plugin", name, s.name)}
			}
			if !supported {
				return p, &FieldError{Field: field, Err: fmt.Errorf("plugin %q is %w", name, ErrUnsupported)}
			}
			a, ok := args[name]
			if !ok {
				return p, &FieldError{Field: field, Err: fmt.Errorf("plugin %q has no pluginConfig entry (the Descheduler requires one)", name)}
			}
			if s.out != nil {
				*s.out = append(*s.out, Strategy{Name: name, Args: a})
			}
		}
	}
	return p, nil
}

func joinField(a, b string) string {
	if b == "" {
		return a
	}
	if strings.HasPrefix(b, "[") {
		return a + b
	}
	return a + "." + b
}

// strictYAML decodes YAML or JSON refusing unknown fields.
func strictYAML(data []byte, into any) error {
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return err
	}
	return strictJSON(j, into)
}

func strictJSON(data []byte, into any) error {
	if len(bytes.TrimSpace(data)) == 0 || string(bytes.TrimSpace(data)) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(into)
}

// ParseSelector parses a label selector string ("a=b,c!=d,e in (f,g),!h").
func ParseSelector(s string) (*model.Selector, error) {
	ls, err := parseSelector(s)
	if err != nil {
		return nil, err
	}
	sel, err := ls.Compile()
	if err != nil {
		return nil, err
	}
	return &sel, nil
}

func parseSelector(s string) (*model.LabelSelector, error) {
	ls := &model.LabelSelector{}
	for _, part := range splitSelector(s) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		switch {
		case strings.Contains(part, " notin "), strings.Contains(part, " in "):
			op, sep := model.LabelSelectorOpIn, " in "
			if strings.Contains(part, " notin ") {
				op, sep = model.LabelSelectorOpNotIn, " notin "
			}
			kv := strings.SplitN(part, sep, 2)
			vals := strings.TrimSpace(kv[1])
			if !strings.HasPrefix(vals, "(") || !strings.HasSuffix(vals, ")") {
				return nil, fmt.Errorf("%q: values must be in parentheses", part)
			}
			var values []string
			for _, v := range strings.Split(vals[1:len(vals)-1], ",") {
				values = append(values, strings.TrimSpace(v))
			}
			sort.Strings(values)
			ls.MatchExpressions = append(ls.MatchExpressions, model.LabelSelectorRequirement{Key: strings.TrimSpace(kv[0]), Operator: op, Values: values})
		case strings.HasPrefix(part, "!"):
			ls.MatchExpressions = append(ls.MatchExpressions, model.LabelSelectorRequirement{Key: strings.TrimSpace(part[1:]), Operator: model.LabelSelectorOpDoesNotExist})
		case strings.Contains(part, "!="):
			kv := strings.SplitN(part, "!=", 2)
			ls.MatchExpressions = append(ls.MatchExpressions, model.LabelSelectorRequirement{Key: strings.TrimSpace(kv[0]), Operator: model.LabelSelectorOpNotIn, Values: []string{strings.TrimSpace(kv[1])}})
		case strings.Contains(part, "="):
			kv := strings.SplitN(strings.Replace(part, "==", "=", 1), "=", 2)
			if ls.MatchLabels == nil {
				ls.MatchLabels = map[string]string{}
			}
			ls.MatchLabels[strings.TrimSpace(kv[0])] = strings.TrimSpace(kv[1])
		default:
			if strings.ContainsAny(part, " ()") {
				return nil, fmt.Errorf("%q is not a selector requirement", part)
			}
			ls.MatchExpressions = append(ls.MatchExpressions, model.LabelSelectorRequirement{Key: part, Operator: model.LabelSelectorOpExists})
		}
	}
	return ls, nil
}

// splitSelector splits at commas outside parentheses.
func splitSelector(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
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
	return append(out, s[start:])
}

func hasDuplicates[T comparable](list []T) bool {
	seen := map[T]bool{}
	for _, v := range list {
		if seen[v] {
			return true
		}
		seen[v] = true
	}
	return false
}
