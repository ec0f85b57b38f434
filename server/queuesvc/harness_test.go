package queuesvc

import (
	"context"
	"sync"
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/holder"
)

// fakeObjects is the object store side: pods as sent, nodes, refreshes.
type fakeObjects struct {
	mu        sync.Mutex
	pods      map[string]*model.Pod
	nodes     map[string]*model.Node
	refreshed []string
}

func (f *fakeObjects) SentPod(uid string) (*model.Pod, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.pods[uid]
	return p, ok
}

func (f *fakeObjects) Node(name string) (*model.Node, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, ok := f.nodes[name]
	return n, ok
}

func (f *fakeObjects) RefreshPod(_ context.Context, ref objstore.Ref) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refreshed = append(f.refreshed, ref.Namespace+"/"+ref.Name)
	return nil
}

// fakeLog is the decision log and its book of admissions: it commits
// every item, refusing a second Admit of a workload as the log does.
type fakeLog struct {
	mu     sync.Mutex
	admits map[string]*berthv1.Admit
	plans  []framework.Plan
}

func (l *fakeLog) Submit(_ context.Context, plan framework.Plan) (framework.PlanResult, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.plans = append(l.plans, plan)
	res := framework.PlanResult{Revisions: make([]uint64, len(plan.Items)), Refused: make([]error, len(plan.Items))}
	for i, item := range plan.Items {
		res.Revisions[i] = uint64(i + 1)
		switch it := item.(type) {
		case *framework.Admission:
			a := &berthv1.Admit{WorkloadNamespace: it.Workload.Namespace, WorkloadName: it.Workload.Name, WorkloadUid: it.Workload.UID, ClusterQueue: it.ClusterQueue}
			for _, ps := range it.PodSets {
				a.PodSets = append(a.PodSets, &berthv1.PodSetAdmission{Name: ps.Name, Count: ps.Count, Flavors: ps.Flavors})
			}
			l.admits[it.Workload.Key()] = a
		case *framework.WorkloadEviction:
			delete(l.admits, it.Workload.Key())
		}
	}
	return res, nil
}

func (l *fakeLog) Admissions() []*berthv1.Admit {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*berthv1.Admit
	for _, a := range l.admits {
		out = append(out, a)
	}
	return out
}

func (l *fakeLog) ForgetAdmission(_ context.Context, ns, name, _ string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.admits, ns+"/"+name)
	return nil
}

// admissions are the Admits of every plan submitted, by workload.
func (l *fakeLog) admissions() map[string]*framework.Admission {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]*framework.Admission{}
	for _, p := range l.plans {
		for _, item := range p.Items {
			if a, ok := item.(*framework.Admission); ok {
				out[a.Workload.Key()] = a
			}
		}
	}
	return out
}

type harness struct {
	c       *Controller
	objects *fakeObjects
	log     *fakeLog
	holder  *holder.Holder
	reg     *objstore.Registry
}

func newHarness(t testing.TB, cfg quota.Config) *harness {
	t.Helper()
	h := &harness{
		objects: &fakeObjects{pods: map[string]*model.Pod{}, nodes: map[string]*model.Node{}},
		log:     &fakeLog{admits: map[string]*berthv1.Admit{}},
		holder:  holder.New(), reg: objstore.NewRegistry(),
	}
	if err := h.holder.Register(h.reg); err != nil {
		t.Fatal(err)
	}
	var err error
	h.c, err = New(Options{Objects: h.objects, Holder: h.holder, Planner: h.log, Book: h.log, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// addPod sends a pod: kept as sent, and its event handled.
func (h *harness) addPod(p *model.Pod) {
	h.objects.mu.Lock()
	h.objects.pods[p.UID] = p
	h.objects.mu.Unlock()
	h.c.Handle(context.Background(), objstore.Event{Kind: objstore.KindPod, New: p})
}

func (h *harness) upsert(t testing.TB, obj any) error {
	t.Helper()
	return h.reg.Upsert(t.Context(), obj)
}
