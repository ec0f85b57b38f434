package pressure

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Signal is an eviction signal, named as the kubelet names it.
type Signal string

// The signals the kubelet evicts on, in the order Berth tries them when
// several are met (memory first, as the kubelet; the rest is Berth's choice).
const (
	SignalMemoryAvailable            Signal = "memory.available"
	SignalAllocatableMemoryAvailable Signal = "allocatableMemory.available"
	SignalNodeFsAvailable            Signal = "nodefs.available"
	SignalNodeFsInodesFree           Signal = "nodefs.inodesFree"
	SignalImageFsAvailable           Signal = "imagefs.available"
	SignalImageFsInodesFree          Signal = "imagefs.inodesFree"
	SignalContainerFsAvailable       Signal = "containerfs.available"
	SignalContainerFsInodesFree      Signal = "containerfs.inodesFree"
	SignalPIDAvailable               Signal = "pid.available"
)

// Signals lists every signal in Berth's reclaim order.
var Signals = []Signal{
	SignalMemoryAvailable, SignalAllocatableMemoryAvailable,
	SignalNodeFsAvailable, SignalNodeFsInodesFree,
	SignalImageFsAvailable, SignalImageFsInodesFree,
	SignalContainerFsAvailable, SignalContainerFsInodesFree,
	SignalPIDAvailable,
}

// Resource is what evicting for a signal reclaims; it is the resource name
// in the kubelet's message ("The node was low on resource: memory.").
func (s Signal) Resource() string {
	switch s {
	case SignalMemoryAvailable, SignalAllocatableMemoryAvailable:
		return "memory"
	case SignalNodeFsAvailable, SignalImageFsAvailable, SignalContainerFsAvailable:
		return "ephemeral-storage"
	case SignalNodeFsInodesFree, SignalImageFsInodesFree, SignalContainerFsInodesFree:
		return "inodes"
	case SignalPIDAvailable:
		return "pids"
	}
	return ""
}

// Condition is the node condition a met threshold of the signal sets.
func (s Signal) Condition() Condition {
	switch s.Resource() {
	case "memory":
		return MemoryPressure
	case "ephemeral-storage", "inodes":
		return DiskPressure
	case "pids":
		return PIDPressure
	}
	return ""
}

func (s Signal) order() int {
	for i, o := range Signals {
		if o == s {
			return i
		}
	}
	return len(Signals)
}

// Condition is a node pressure condition type, as Kubernetes names it.
type Condition string

// The pressure conditions, in the order they are listed.
const (
	MemoryPressure Condition = "MemoryPressure"
	DiskPressure   Condition = "DiskPressure"
	PIDPressure    Condition = "PIDPressure"
)

// Conditions lists the pressure conditions in a fixed order.
var Conditions = []Condition{MemoryPressure, DiskPressure, PIDPressure}

// Taint is the NoSchedule taint the node lifecycle controller puts on a
// node with the condition (node.kubernetes.io/memory-pressure, ...).
func (c Condition) Taint() string {
	switch c {
	case MemoryPressure:
		return "node.kubernetes.io/memory-pressure"
	case DiskPressure:
		return "node.kubernetes.io/disk-pressure"
	case PIDPressure:
		return "node.kubernetes.io/pid-pressure"
	}
	return ""
}

// Value is a threshold or minimum-reclaim value: a quantity, or a fraction
// of the signal's capacity (float32, as the kubelet parses percentages).
type Value struct {
	Quantity   *resource.Quantity
	Percentage float32
	// Raw is the value as written ("10%"), how keys and messages show it.
	Raw string
}

// Of is the value in units of the signal for a capacity: the quantity, or
// the kubelet's float32 percentage of the capacity (10% of 100Gi is
// 10737418400, not 10Gi).
func (v Value) Of(capacity int64) resource.Quantity {
	if v.Quantity != nil {
		return v.Quantity.DeepCopy()
	}
	return *resource.NewQuantity(int64(float64(capacity)*float64(v.Percentage)), resource.BinarySI)
}

func (v Value) String() string {
	if v.Quantity != nil {
		return v.Quantity.String()
	}
	if v.Raw != "" {
		return v.Raw
	}
	return strconv.FormatFloat(float64(v.Percentage)*100, 'f', -1, 32) + "%"
}

// Threshold is one eviction threshold: the signal is met when what is
// available is below Value. GracePeriod 0 makes it a hard threshold.
type Threshold struct {
	Signal      Signal
	Value       Value
	GracePeriod time.Duration
	MinReclaim  *Value
}

// Hard reports whether the threshold evicts at once (no grace period).
func (t Threshold) Hard() bool { return t.GracePeriod == 0 }

// Key names the threshold uniquely within a configuration, in the form the
// kube oracle prints: "memory.available<1Gi grace=30s minReclaim=500Mi".
// The durable state refers to thresholds by it.
func (t Threshold) Key() string {
	var b strings.Builder
	b.WriteString(string(t.Signal) + "<" + t.Value.String())
	if t.GracePeriod > 0 {
		b.WriteString(" grace=" + t.GracePeriod.String())
	}
	if t.MinReclaim != nil {
		b.WriteString(" minReclaim=" + t.MinReclaim.String())
	}
	return b.String()
}

// Config is the parsed eviction configuration of a node.
type Config struct {
	Thresholds               []Threshold
	PressureTransitionPeriod time.Duration
	MaxPodGracePeriodSeconds int64
}

// DefaultPressureTransitionPeriod is the kubelet's default.
const DefaultPressureTransitionPeriod = 5 * time.Minute

// DefaultEvictionHard is the kubelet's default evictionHard (Linux).
func DefaultEvictionHard() map[string]string {
	return map[string]string{
		"memory.available":   "100Mi",
		"nodefs.available":   "10%",
		"nodefs.inodesFree":  "5%",
		"imagefs.available":  "15%",
		"imagefs.inodesFree": "5%",
	}
}

// Settings is the eviction configuration as written, with the kubelet's
// field names. A nil EvictionHard means the kubelet's default; an empty one
// means no hard thresholds.
type Settings struct {
	EvictionHard                     map[string]string `json:"evictionHard,omitempty"`
	EvictionSoft                     map[string]string `json:"evictionSoft,omitempty"`
	EvictionSoftGracePeriod          map[string]string `json:"evictionSoftGracePeriod,omitempty"`
	EvictionMinimumReclaim           map[string]string `json:"evictionMinimumReclaim,omitempty"`
	EvictionPressureTransitionPeriod string            `json:"evictionPressureTransitionPeriod,omitempty"`
	EvictionMaxPodGracePeriod        int64             `json:"evictionMaxPodGracePeriod,omitempty"`
}

// Parse validates the settings and builds the thresholds as the kubelet
// does: hard ones, soft ones with their grace periods, minimum reclaim
// attached to every threshold of the signal, and allocatableMemory.available
// copied from the hard memory.available threshold (enforceNodeAllocatable
// "pods"). Errors name the key: evictionSoft[memory.available]: ...
func (s Settings) Parse() (Config, error) {
	cfg := Config{PressureTransitionPeriod: DefaultPressureTransitionPeriod}
	hardSpec := s.EvictionHard
	if hardSpec == nil {
		hardSpec = DefaultEvictionHard()
	}
	hard, err := parseStatements("evictionHard", hardSpec)
	if err != nil {
		return Config{}, err
	}
	soft, err := parseStatements("evictionSoft", s.EvictionSoft)
	if err != nil {
		return Config{}, err
	}
	graces, err := parseGracePeriods(s.EvictionSoftGracePeriod)
	if err != nil {
		return Config{}, err
	}
	reclaims, err := parseMinReclaims(s.EvictionMinimumReclaim)
	if err != nil {
		return Config{}, err
	}
	for i := range soft {
		g, ok := graces[soft[i].Signal]
		if !ok {
			return Config{}, fmt.Errorf("evictionSoft[%s]: no grace period in evictionSoftGracePeriod", soft[i].Signal)
		}
		if g == 0 {
			return Config{}, fmt.Errorf("evictionSoftGracePeriod[%s]: must be positive for a soft threshold", soft[i].Signal)
		}
		soft[i].GracePeriod = g
	}
	for _, t := range hard {
		if t.Signal == SignalMemoryAvailable {
			hard = append(hard, Threshold{Signal: SignalAllocatableMemoryAvailable, Value: t.Value})
		}
	}
	all := append(hard, soft...)
	for i := range all {
		if r, ok := reclaims[all[i].Signal]; ok {
			all[i].MinReclaim = &r
		} else if all[i].Signal == SignalAllocatableMemoryAvailable {
			if r, ok := reclaims[SignalMemoryAvailable]; ok {
				all[i].MinReclaim = &r
			}
		}
	}
	sortThresholds(all)
	cfg.Thresholds = all
	if p := s.EvictionPressureTransitionPeriod; p != "" {
		d, err := time.ParseDuration(p)
		if err != nil {
			return Config{}, fmt.Errorf("evictionPressureTransitionPeriod: %q is not a duration", p)
		}
		if d < 0 {
			return Config{}, fmt.Errorf("evictionPressureTransitionPeriod: %s is negative", p)
		}
		if d > 0 { // zero means unset, as in the kubelet
			cfg.PressureTransitionPeriod = d
		}
	}
	if s.EvictionMaxPodGracePeriod < 0 {
		return Config{}, fmt.Errorf("evictionMaxPodGracePeriod: %d is negative", s.EvictionMaxPodGracePeriod)
	}
	cfg.MaxPodGracePeriodSeconds = s.EvictionMaxPodGracePeriod
	return cfg, nil
}

// sortThresholds puts thresholds in Berth's reclaim order: by signal (memory
// first), hard before soft, then by key, so that every choice the kubelet
// leaves to map order is made the same way every time.
func sortThresholds(ts []Threshold) {
	sort.SliceStable(ts, func(i, j int) bool {
		a, b := ts[i], ts[j]
		if a.Signal != b.Signal {
			return a.Signal.order() < b.Signal.order()
		}
		if a.GracePeriod != b.GracePeriod {
			return a.GracePeriod < b.GracePeriod
		}
		return a.Key() < b.Key()
	})
}

func validSignal(key, signal string) (Signal, error) {
	s := Signal(signal)
	if s.order() == len(Signals) || s == SignalAllocatableMemoryAvailable {
		return "", fmt.Errorf("%s[%s]: unknown eviction signal (want one of memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree, containerfs.available, containerfs.inodesFree, pid.available)", key, signal)
	}
	return s, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func parseStatements(key string, m map[string]string) ([]Threshold, error) {
	var out []Threshold
	for _, name := range sortedKeys(m) {
		sig, err := validSignal(key, name)
		if err != nil {
			return nil, err
		}
		raw := m[name]
		if raw == "0%" || raw == "100%" {
			continue // the kubelet ignores both
		}
		v, err := parseValue(raw)
		if err != nil {
			return nil, fmt.Errorf("%s[%s]: %w", key, name, err)
		}
		if v.Quantity == nil && (v.Percentage < 0 || v.Percentage > 1) {
			return nil, fmt.Errorf("%s[%s]: percentage %s is not within 0%%..100%%", key, name, raw)
		}
		if v.Quantity != nil && v.Quantity.Sign() <= 0 {
			return nil, fmt.Errorf("%s[%s]: threshold %s must be positive", key, name, raw)
		}
		out = append(out, Threshold{Signal: sig, Value: v})
	}
	return out, nil
}

func parseValue(raw string) (Value, error) {
	if strings.HasSuffix(raw, "%") {
		f, err := strconv.ParseFloat(strings.TrimSuffix(raw, "%"), 32)
		if err != nil {
			return Value{}, fmt.Errorf("malformed percentage %q", raw)
		}
		return Value{Percentage: float32(f) / 100, Raw: raw}, nil
	}
	q, err := resource.ParseQuantity(raw)
	if err != nil {
		return Value{}, fmt.Errorf("malformed quantity %q", raw)
	}
	return Value{Quantity: &q}, nil
}

func parseGracePeriods(m map[string]string) (map[Signal]time.Duration, error) {
	out := map[Signal]time.Duration{}
	for _, name := range sortedKeys(m) {
		sig, err := validSignal("evictionSoftGracePeriod", name)
		if err != nil {
			return nil, err
		}
		d, err := time.ParseDuration(m[name])
		if err != nil {
			return nil, fmt.Errorf("evictionSoftGracePeriod[%s]: %q is not a duration", name, m[name])
		}
		if d < 0 {
			return nil, fmt.Errorf("evictionSoftGracePeriod[%s]: %s is negative", name, m[name])
		}
		out[sig] = d
	}
	return out, nil
}

func parseMinReclaims(m map[string]string) (map[Signal]Value, error) {
	out := map[Signal]Value{}
	for _, name := range sortedKeys(m) {
		sig, err := validSignal("evictionMinimumReclaim", name)
		if err != nil {
			return nil, err
		}
		v, err := parseValue(m[name])
		if err != nil {
			return nil, fmt.Errorf("evictionMinimumReclaim[%s]: %w", name, err)
		}
		if v.Quantity == nil && v.Percentage <= 0 {
			return nil, fmt.Errorf("evictionMinimumReclaim[%s]: percentage %s must be positive", name, m[name])
		}
		if v.Quantity != nil && v.Quantity.Sign() < 0 {
			return nil, fmt.Errorf("evictionMinimumReclaim[%s]: %s is negative", name, m[name])
		}
		out[sig] = v
	}
	return out, nil
}
