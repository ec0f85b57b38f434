package scheduler

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/noderesources"
)

// queuedAtProbe is a PreEnqueue plugin that records, when the queue
// admits a pod (from then on the scheduling loop may pop it and bind it
// at once), whether the scheduler had recorded when the pod was queued.
type queuedAtProbe struct {
	s    *Scheduler
	seen map[string]bool // pod uid -> queuedAt recorded
}

func (p *queuedAtProbe) Name() string { return "QueuedAtProbe" }

func (p *queuedAtProbe) PreEnqueue(_ context.Context, pod *model.Pod) *framework.Status {
	p.seen[pod.UID] = !p.s.state.record(pod.UID).queuedAt.IsZero()
	return nil
}

// TestQueuedAtRecordedBeforeThePodIsPoppable: a pod's queue time is
// recorded before the queue holds it. Recorded after, a binding cycle
// that ran first (the scheduling loop pops the pod as soon as the queue
// has it) found no queue time and observed no scheduling latency: server/
// daemon's TestMetrics saw no pod_scheduling_sli_duration sample under load.
func TestQueuedAtRecordedBeforeThePodIsPoppable(t *testing.T) {
	tp := withFit(&testPlugins{})
	probe := &queuedAtProbe{seen: map[string]bool{}}
	extra := tp.extraConfig
	tp.extraConfig = func(p *config.Profile) {
		extra(p)
		p.Plugins.PreEnqueue.Enabled = append(p.Plugins.PreEnqueue.Enabled, config.Plugin{Name: probe.Name()})
	}
	reg, cfg := tp.registryAndConfig()
	reg[noderesources.Name] = noderesources.NewFit
	reg[probe.Name()] = func(context.Context, json.RawMessage, framework.Handle) (framework.Plugin, error) { return probe, nil }
	e := newEnvFakes(t)
	s, err := New(context.Background(), Options{Config: cfg, Registry: reg, Decisions: e.sink, Clock: e.clock, Deterministic: true, Replay: Replay{BindInline: true}})
	if err != nil {
		t.Fatal(err)
	}
	e.s, probe.s = s, s
	e.addNodes(mt.MakeNode("n1").Capacity(mt.Res(4000, 4*mt.Gi)).Obj())
	pod := mt.MakePod("p").Req(mt.Res(100, mt.Mi)).Obj()
	e.addPods(pod)
	if recorded, ok := probe.seen[pod.UID]; !ok || !recorded {
		t.Errorf("PreEnqueue ran %v; queue time recorded by then: %v, want true", ok, recorded)
	}
	if att := e.scheduleOne(); att.Result != ResultScheduled {
		t.Fatalf("attempt: %s (%s)", att.Result, att.Message)
	}
}
