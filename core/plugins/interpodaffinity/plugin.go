package interpodaffinity

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/domaincount"
	"github.com/berthsched/berth/core/plugins/names"
)

// Name is the plugin's name in configurations.
const Name = names.InterPodAffinity

// Filter reasons, as kube-scheduler words them.
const (
	// ErrReasonAffinity: no pod matching the pod's required affinity runs
	// in the node's domain. UnschedulableAndUnresolvable: evicting pods
	// cannot add one.
	ErrReasonAffinity = "node(s) didn't match pod affinity rules"
	// ErrReasonAntiAffinity: a pod the pod's required anti-affinity
	// matches runs in the node's domain. Unschedulable.
	ErrReasonAntiAffinity = "node(s) didn't match pod anti-affinity rules"
	// ErrReasonExistingAntiAffinity: the pod matches the required
	// anti-affinity of a pod running in the node's domain. Unschedulable.
	ErrReasonExistingAntiAffinity = "node(s) didn't satisfy existing pods anti-affinity rules"
)

// ErrNoState is returned (as an Error status) when Filter, Score or an
// extension runs without the state of PreFilter or PreScore.
var ErrNoState = errors.New("interpodaffinity: no cycle state; PreFilter or PreScore did not run")

// InterPodAffinity filters and scores nodes by the pods running near them.
type InterPodAffinity struct {
	args     Args
	handle   framework.Handle
	parallel framework.Parallelizer
	// index keeps counts per signature across cycles (index.go).
	index *domaincount.Index
}

var (
	_ framework.PreFilterPlugin     = (*InterPodAffinity)(nil)
	_ framework.PreFilterExtensions = (*InterPodAffinity)(nil)
	_ framework.FilterPlugin        = (*InterPodAffinity)(nil)
	_ framework.PreScorePlugin      = (*InterPodAffinity)(nil)
	_ framework.ScorePlugin         = (*InterPodAffinity)(nil)
	_ framework.ScoreExtensions     = (*InterPodAffinity)(nil)
	_ framework.EnqueueExtensions   = (*InterPodAffinity)(nil)
)

// New decodes InterPodAffinityArgs and returns the plugin. The handle
// gives the snapshot and the namespaces; it must not be nil.
func New(_ context.Context, raw json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	args, err := DecodeArgs(raw)
	if err != nil {
		return nil, err
	}
	return NewWithArgs(args, h)
}

// NewWithArgs returns the plugin for validated args.
func NewWithArgs(args Args, h framework.Handle) (*InterPodAffinity, error) {
	if h == nil {
		return nil, errors.New("interpodaffinity: nil framework handle")
	}
	if err := args.Validate(); err != nil {
		return nil, err
	}
	return &InterPodAffinity{args: args, handle: h, parallel: h.Parallelizer(), index: domaincount.New(maxIndexed)}, nil
}

// Name returns Name.
func (*InterPodAffinity) Name() string { return Name }

// Args returns the plugin's args.
func (pl *InterPodAffinity) Args() Args { return pl.args }

// namespaceLabels returns the labels of the pod's namespace; nil when the
// namespace is unknown (kube-scheduler assumes no labels then).
func (pl *InterPodAffinity) namespaceLabels(ns string) map[string]string {
	if l := pl.handle.Namespaces(); l != nil {
		labels, _ := l.NamespaceLabels(ns)
		return labels
	}
	return nil
}

// lister returns the snapshot of the current cycle.
func (pl *InterPodAffinity) lister() (framework.NodeInfoLister, error) {
	l := pl.handle.SnapshotSharedLister()
	if l == nil {
		return nil, errors.New("interpodaffinity: the handle has no snapshot")
	}
	return l, nil
}

func podAffinity(pod *model.Pod) *model.PodAffinity {
	if pod.Affinity == nil {
		return nil
	}
	return pod.Affinity.PodAffinity
}

func podAntiAffinity(pod *model.Pod) *model.PodAntiAffinity {
	if pod.Affinity == nil {
		return nil
	}
	return pod.Affinity.PodAntiAffinity
}

// requiredTerms returns the pod's required affinity and anti-affinity
// terms as written.
func requiredTerms(pod *model.Pod) (affinity, anti []model.PodAffinityTerm) {
	if a := podAffinity(pod); a != nil {
		affinity = a.Required
	}
	if a := podAntiAffinity(pod); a != nil {
		anti = a.Required
	}
	return affinity, anti
}

// preferredTerms returns the pod's preferred affinity and anti-affinity
// terms as written.
func preferredTerms(pod *model.Pod) (affinity, anti []model.WeightedPodAffinityTerm) {
	if a := podAffinity(pod); a != nil {
		affinity = a.Preferred
	}
	if a := podAntiAffinity(pod); a != nil {
		anti = a.Preferred
	}
	return affinity, anti
}
