package framework

import (
	"fmt"
	"time"

	"github.com/berthsched/berth/core/model"
)

// PodInfo is a pod with what the scheduler computes from it once: effective
// requests and compiled affinity terms. It is immutable and shared between
// the cache, snapshots and cycles.
type PodInfo struct {
	Pod      *model.Pod
	Requests model.PodRequests

	RequiredAffinityTerms      []AffinityTerm
	RequiredAntiAffinityTerms  []AffinityTerm
	PreferredAffinityTerms     []WeightedAffinityTerm
	PreferredAntiAffinityTerms []WeightedAffinityTerm
}

// AffinityTerm is a compiled PodAffinityTerm.
type AffinityTerm struct {
	Namespaces        map[string]struct{} // explicit namespaces (own namespace when both are empty)
	Selector          model.Selector      // pods' labels
	TopologyKey       string
	NamespaceSelector model.Selector // namespaces' labels; Nothing when unset
}

// WeightedAffinityTerm is a compiled preferred term.
type WeightedAffinityTerm struct {
	AffinityTerm
	Weight int32
}

// Matches reports whether pod (in a namespace with labels nsLabels) is
// selected by the term.
func (t *AffinityTerm) Matches(pod *model.Pod, nsLabels map[string]string) bool {
	if _, ok := t.Namespaces[pod.Namespace]; ok || t.NamespaceSelector.Matches(nsLabels) {
		return t.Selector.Matches(pod.Labels)
	}
	return false
}

// NewPodInfo computes a PodInfo. It fails only on selectors that do not
// compile, which ingest validation is expected to have rejected already.
func NewPodInfo(pod *model.Pod) (*PodInfo, error) {
	pi := &PodInfo{Pod: pod, Requests: model.ComputeRequests(pod)}
	if pod.Affinity == nil {
		return pi, nil
	}
	var err error
	if pa := pod.Affinity.PodAffinity; pa != nil {
		if pi.RequiredAffinityTerms, err = compileTerms(pod, pa.Required); err != nil {
			return nil, fmt.Errorf("podAffinity.required: %w", err)
		}
		if pi.PreferredAffinityTerms, err = compileWeightedTerms(pod, pa.Preferred); err != nil {
			return nil, fmt.Errorf("podAffinity.preferred: %w", err)
		}
	}
	if pa := pod.Affinity.PodAntiAffinity; pa != nil {
		if pi.RequiredAntiAffinityTerms, err = compileTerms(pod, pa.Required); err != nil {
			return nil, fmt.Errorf("podAntiAffinity.required: %w", err)
		}
		if pi.PreferredAntiAffinityTerms, err = compileWeightedTerms(pod, pa.Preferred); err != nil {
			return nil, fmt.Errorf("podAntiAffinity.preferred: %w", err)
		}
	}
	return pi, nil
}

// MustPodInfo is NewPodInfo for pods known to be valid (tests).
func MustPodInfo(pod *model.Pod) *PodInfo {
	pi, err := NewPodInfo(pod)
	if err != nil {
		panic(err)
	}
	return pi
}

func compileTerms(pod *model.Pod, terms []model.PodAffinityTerm) ([]AffinityTerm, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	out := make([]AffinityTerm, 0, len(terms))
	for i := range terms {
		t, err := CompileAffinityTerm(pod, &terms[i])
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out = append(out, t)
	}
	return out, nil
}

func compileWeightedTerms(pod *model.Pod, terms []model.WeightedPodAffinityTerm) ([]WeightedAffinityTerm, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	out := make([]WeightedAffinityTerm, 0, len(terms))
	for i := range terms {
		t, err := CompileAffinityTerm(pod, &terms[i].Term)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out = append(out, WeightedAffinityTerm{AffinityTerm: t, Weight: terms[i].Weight})
	}
	return out, nil
}

// CompileAffinityTerm compiles one term of pod. MatchLabelKeys and
// MismatchLabelKeys are folded into the selector with the pod's own label
// values, which in Kubernetes the API server does when the pod is created.
func CompileAffinityTerm(pod *model.Pod, term *model.PodAffinityTerm) (AffinityTerm, error) {
	sel, err := term.LabelSelector.Compile()
	if err != nil {
		return AffinityTerm{}, fmt.Errorf("labelSelector: %w", err)
	}
	if term.LabelSelector != nil {
		for _, k := range term.MatchLabelKeys {
			if v, ok := pod.Labels[k]; ok {
				sel = sel.AddIn(k, v)
			}
		}
		for _, k := range term.MismatchLabelKeys {
			if v, ok := pod.Labels[k]; ok {
				sel = sel.AddNotIn(k, v)
			}
		}
	}
	nsSel, err := term.NamespaceSelector.Compile()
	if err != nil {
		return AffinityTerm{}, fmt.Errorf("namespaceSelector: %w", err)
	}
	namespaces := make(map[string]struct{}, len(term.Namespaces)+1)
	for _, ns := range term.Namespaces {
		namespaces[ns] = struct{}{}
	}
	if len(term.Namespaces) == 0 && term.NamespaceSelector == nil {
		namespaces[pod.Namespace] = struct{}{}
	}
	return AffinityTerm{Namespaces: namespaces, Selector: sel, TopologyKey: term.TopologyKey, NamespaceSelector: nsSel}, nil
}

// QueuedPodInfo is a pod waiting in the scheduling queue, with the
// bookkeeping the queue and the failure handler need.
type QueuedPodInfo struct {
	*PodInfo
	// Timestamp is when the pod last entered the queue (activeQ ordering).
	Timestamp time.Time
	// InitialAttemptTimestamp is when the pod first entered activeQ (a
	// gated pod: when its gates were lifted); zero before. It is not
	// changed by later attempts.
	InitialAttemptTimestamp time.Time
	// Attempts counts scheduling attempts (for backoff).
	Attempts int
	// UnschedulableCount counts failures due to Unschedulable statuses.
	UnschedulableCount int
	// UnschedulablePlugins and PendingPlugins name the plugins that rejected
	// the pod in its last attempt; queueing hints of only these plugins can
	// move it back.
	UnschedulablePlugins map[string]struct{}
	PendingPlugins       map[string]struct{}
	// GatingPlugin is the PreEnqueue plugin keeping the pod out of activeQ.
	GatingPlugin        string
	GatingPluginMessage string
	// ConsecutiveErrorsCount counts attempts that ended in an internal error.
	ConsecutiveErrorsCount int
}

// Gated reports whether a PreEnqueue plugin holds the pod.
func (q *QueuedPodInfo) Gated() bool { return q.GatingPlugin != "" }
