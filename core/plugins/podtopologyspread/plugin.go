package podtopologyspread

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
const Name = names.PodTopologySpread

// Filter reasons, as kube-scheduler words them.
const (
	// ErrReasonConstraintsNotMatch: placing the pod would exceed a
	// constraint's maxSkew. Unschedulable.
	ErrReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints"
	// ErrReasonNodeLabelNotMatch: the node lacks a constraint's topology
	// key. UnschedulableAndUnresolvable.
	ErrReasonNodeLabelNotMatch = ErrReasonConstraintsNotMatch + " (missing required label)"
)

// ErrNoState is returned (as an Error status) when Filter, Score or an
// extension runs without the state of PreFilter or PreScore.
var ErrNoState = errors.New("podtopologyspread: no cycle state; PreFilter or PreScore did not run")

// PodTopologySpread filters and scores nodes by the spread of the pods a
// pod's topology spread constraints select.
type PodTopologySpread struct {
	args     Args
	handle   framework.Handle
	parallel framework.Parallelizer
	// defaults are the cluster default constraints for pods without their
	// own: the System ones or the args' list.
	defaults        []model.TopologySpreadConstraint
	systemDefaulted bool
	// index keeps PreFilter's counts per constraint signature, scoreIndex
	// PreScore's (index.go).
	index, scoreIndex *domaincount.Index
}

var (
	_ framework.PreFilterPlugin     = (*PodTopologySpread)(nil)
	_ framework.PreFilterExtensions = (*PodTopologySpread)(nil)
	_ framework.FilterPlugin        = (*PodTopologySpread)(nil)
	_ framework.DomainRejecter      = (*PodTopologySpread)(nil)
	_ framework.PreScorePlugin      = (*PodTopologySpread)(nil)
	_ framework.ScorePlugin         = (*PodTopologySpread)(nil)
	_ framework.ScoreExtensions     = (*PodTopologySpread)(nil)
	_ framework.EnqueueExtensions   = (*PodTopologySpread)(nil)
)

// New decodes PodTopologySpreadArgs and returns the plugin. The handle
// gives the snapshot; it must not be nil.
func New(_ context.Context, raw json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	args, err := DecodeArgs(raw)
	if err != nil {
		return nil, err
	}
	return NewWithArgs(args, h)
}

// NewWithArgs returns the plugin for validated args.
func NewWithArgs(args Args, h framework.Handle) (*PodTopologySpread, error) {
	if h == nil {
		return nil, errors.New("podtopologyspread: nil framework handle")
	}
	if err := args.Validate(); err != nil {
		return nil, err
	}
	pl := &PodTopologySpread{args: args, handle: h, parallel: h.Parallelizer(), defaults: args.DefaultConstraints,
		index: domaincount.New(maxIndexed), scoreIndex: domaincount.New(maxIndexed)}
	if args.DefaultingType == SystemDefaulting {
		pl.defaults, pl.systemDefaulted = systemDefaultConstraints(), true
	}
	return pl, nil
}

// Name returns Name.
func (*PodTopologySpread) Name() string { return Name }

// Args returns the plugin's args.
func (pl *PodTopologySpread) Args() Args { return pl.args }

// lister returns the snapshot of the current cycle.
func (pl *PodTopologySpread) lister() (framework.NodeInfoLister, error) {
	l := pl.handle.SnapshotSharedLister()
	if l == nil {
		return nil, errors.New("podtopologyspread: the handle has no snapshot")
	}
	return l, nil
}
