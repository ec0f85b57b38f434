package model

// TaintEffect is what a taint does to pods that do not tolerate it.
type TaintEffect string

const (
	TaintEffectNoSchedule       TaintEffect = "NoSchedule"
	TaintEffectPreferNoSchedule TaintEffect = "PreferNoSchedule"
	TaintEffectNoExecute        TaintEffect = "NoExecute"
)

// Taint repels pods that do not tolerate it.
type Taint struct {
	Key    string
	Value  string
	Effect TaintEffect
}

// String renders the taint as kube's messages do: "{key: value}".
func (t *Taint) String() string { return "{" + t.Key + ": " + t.Value + "}" }

// TolerationOperator is how a toleration compares values.
type TolerationOperator string

const (
	TolerationOpEqual  TolerationOperator = "Equal" // the default when empty
	TolerationOpExists TolerationOperator = "Exists"
)

// Toleration lets a pod be placed on nodes with a matching taint.
type Toleration struct {
	Key               string // empty with Exists: every key
	Operator          TolerationOperator
	Value             string
	Effect            TaintEffect // empty: every effect
	TolerationSeconds *int64      // NoExecute only: how long the pod stays after the taint appears
}

// Tolerates reports whether the toleration matches the taint.
func (t *Toleration) Tolerates(taint *Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case TolerationOpExists:
		return true
	case TolerationOpEqual, "":
		return t.Value == taint.Value
	}
	return false
}

// TolerationsTolerate reports whether any toleration matches the taint.
func TolerationsTolerate(tolerations []Toleration, taint *Taint) bool {
	for i := range tolerations {
		if tolerations[i].Tolerates(taint) {
			return true
		}
	}
	return false
}

// FirstUntolerated returns the first taint, among those whose effect passes
// include, that no toleration matches.
func FirstUntolerated(taints []Taint, tolerations []Toleration, include func(*Taint) bool) (*Taint, bool) {
	for i := range taints {
		t := &taints[i]
		if include != nil && !include(t) {
			continue
		}
		if !TolerationsTolerate(tolerations, t) {
			return t, true
		}
	}
	return nil, false
}
