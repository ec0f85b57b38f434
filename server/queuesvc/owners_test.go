package queuesvc

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/admission"
	"github.com/berthsched/berth/core/quota/integrations"
	"github.com/berthsched/berth/server/convert"
)

// liveHarness is a controller holding what berthctl apply sends of the
// manifests: their Kueue objects (explicit Workloads only: the others'
// are the controller's to derive), namespaces, classes, nodes and pods,
// the pods through the wire (owner references and annotations included).
func liveHarness(t *testing.T, c *manifest.Cluster) *harness {
	t.Helper()
	h := newHarness(t, c.Queueing.Config)
	objs := c.Queueing
	var kueue []any
	for _, o := range objs.Flavors {
		kueue = append(kueue, o)
	}
	for _, o := range objs.Cohorts {
		kueue = append(kueue, o)
	}
	for _, o := range objs.ClusterQueues {
		kueue = append(kueue, o)
	}
	for _, o := range objs.LocalQueues {
		kueue = append(kueue, o)
	}
	for _, o := range objs.PriorityClasses {
		kueue = append(kueue, o)
	}
	for _, w := range objs.Workloads {
		if len(w.Pods) == 0 && len(w.Running) == 0 && w.Error == "" {
			kueue = append(kueue, w)
		}
	}
	for _, o := range kueue {
		if err := h.upsert(t, o); err != nil {
			t.Fatalf("the holder refuses %T: %v", o, err)
		}
	}
	for _, ns := range c.Namespaces {
		h.c.namespaces[ns.Name] = ns
	}
	for _, pc := range c.PriorityClasses {
		h.c.classes[pc.Name] = pc
	}
	for _, n := range c.Nodes {
		h.objects.nodes[n.Name] = n
	}
	for _, p := range c.Pods {
		wire, err := convert.ObjectFromProto(convert.ObjectToProto(convert.Object{Pod: p}))
		if err != nil {
			t.Fatalf("pod %s does not cross the wire: %v", p.Key(), err)
		}
		h.addPod(wire.Pod)
	}
	return h
}

// A queued Job's, StatefulSet's and Deployment's pods, as berthctl apply
// sends them, make in berthd exactly the workloads berthctl simulate
// makes of the same manifests: the same workload lines from the same
// admission run. The controller then admits the partially admissible Job
// with the count simulate admits, and releases only that many of its pods.
func TestOwnerWorkloadsLiveEqualOffline(t *testing.T) {
	for _, f := range []string{"testdata/owners.yaml", "../../cmd/berthctl/testdata/queueing-jobs.yaml"} {
		t.Run(f, func(t *testing.T) {
			c, err := manifest.LoadFiles(f)
			if err != nil {
				t.Fatal(err)
			}
			offline, _, err := admission.RunWith(t.Context(), c.Queueing, c.Namespaces, runOptions)
			if err != nil {
				t.Fatal(err)
			}
			h := liveHarness(t, c)
			s := h.c.snapshot()
			live, _, err := admission.RunWith(t.Context(), s.objs, s.namespaces, runOptions)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(offline, live); diff != "" {
				t.Errorf("workload lines (-simulate +berthd):\n%s", diff)
			}
			owners := 0
			for _, w := range s.workloads {
				if w.origin == OriginOwner {
					owners++
				}
			}
			if owners < 2 {
				t.Errorf("%d workloads of owners, want the Jobs' and StatefulSet's", owners)
			}

			if err := h.c.round(t.Context(), true); err != nil {
				t.Fatal(err)
			}
			admits := h.log.admissions()
			for _, l := range offline {
				a, ok := admits[l.Workload]
				if (l.Result == admission.ResultAdmitted) != ok {
					t.Errorf("%s: simulate %s, berthd admitted %v", l.Workload, l.Result, ok)
					continue
				}
				if !ok {
					continue
				}
				for _, ps := range a.PodSets {
					if want, partial := l.Counts[ps.Name]; partial && ps.Count != want {
						t.Errorf("%s: admitted %d pods of %s, simulate %d", l.Workload, ps.Count, ps.Name, want)
					}
				}
			}
			// The pods released are the counts admitted, owner by owner.
			released := map[string]int32{}
			for _, p := range h.objects.pods {
				if len(h.c.Mutate(p).SchedulingGates) == 0 {
					k, _, _ := workloadOfPod(p)
					released[k]++
				}
			}
			for k, a := range admits {
				var n int32
				for _, ps := range a.PodSets {
					n += ps.Count
				}
				if released[k] != n {
					t.Errorf("%s: %d pods released, %d admitted", k, released[k], n)
				}
				delete(released, k)
			}
			if len(released) > 0 {
				t.Errorf("pods released without an admission: %v", released)
			}
		})
	}
}

// The partially admitted Job of testdata/owners.yaml: 5 of its 8 pods,
// with its WorkloadPriorityClass's priority and Kueue's name.
func TestPartialJobLive(t *testing.T) {
	c, err := manifest.LoadFiles("testdata/owners.yaml")
	if err != nil {
		t.Fatal(err)
	}
	h := liveHarness(t, c)
	if err := h.c.round(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	key := "batch/" + integrations.Name("Job", "batch", "train", "0b1c9a52-job-train")
	a := h.log.admissions()[key]
	if a == nil || len(a.PodSets) != 1 || a.PodSets[0].Name != "main" || a.PodSets[0].Count != 5 {
		t.Fatalf("admission of %s: %+v, want main with 5 pods", key, a)
	}
	w := h.c.snapshot().workloads[key]
	if w.wl.Priority != 500 || w.wl.PodSets[0].Count != 8 || *w.wl.PodSets[0].MinCount != 2 {
		t.Errorf("workload %+v: want priority 500, 8 pods, minCount 2", w.wl)
	}
	// A pod of it created since (a replacement) is not released while 5
	// others are.
	extra := *c.Pods[0]
	extra.Name, extra.UID = "train-extra", "uid-train-extra"
	if k, _, _ := workloadOfPod(&extra); k != key {
		t.Fatalf("extra pod's workload %s, want %s", k, key)
	}
	h.addPod(&extra)
	if err := h.c.round(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	if got := h.c.Mutate(&extra).SchedulingGates; !slices.Equal(got, []string{admission.AdmissionGate}) {
		t.Errorf("a sixth pod of a Job admitted with 5 has gates %v", got)
	}
}

// berthd's owner workloads from pods alone: the owner reference and the
// annotations name the Job and its count; a wrong annotation is the
// workload's error, naming it; running pods without an admission are
// refused (their quota cannot be known), unless they are terminating
// after a preemption (below).
func TestOwnerOf(t *testing.T) {
	jobPod := func(name string, ann map[string]string) *model.Pod {
		return &model.Pod{UID: "uid-" + name, Namespace: "ns", Name: name, Labels: map[string]string{integrations.QueueNameLabel: "lq"},
			Containers: []model.Container{{Name: "c", Requests: model.ResourceList{"cpu": 1000}}},
			Runtime:    &model.PodRuntime{Owners: []model.OwnerReference{{Kind: "Job", Name: "j", UID: "u", Controller: true}}, Annotations: ann}}
	}
	for _, tc := range []struct {
		name  string
		ann   map[string]string
		count int32
		err   string
	}{
		{name: "count from the annotation", ann: map[string]string{integrations.PodGroupTotalCountAnnotation: "4"}, count: 4},
		{name: "count of the pods seen", count: 2},
		{name: "bad count", ann: map[string]string{integrations.PodGroupTotalCountAnnotation: "x"}, count: 2, err: "annotation kueue.x-k8s.io/pod-group-total-count: must be a positive integer, got \"x\""},
		{name: "min above count", ann: map[string]string{integrations.JobMinParallelismAnnotation: "3"}, count: 2, err: "annotation kueue.x-k8s.io/job-min-parallelism: 3 is more than the job's 2 pods"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, quota.Config{})
			h.addPod(jobPod("a", tc.ann))
			h.addPod(jobPod("b", tc.ann))
			s := h.c.snapshot()
			if len(s.workloads) != 1 {
				t.Fatalf("workloads %v, want the Job's one", s.workloads)
			}
			for k, w := range s.workloads {
				if want := "ns/" + integrations.Name("Job", "batch", "j", "u"); k != want || w.origin != OriginOwner || len(w.pods) != 2 {
					t.Errorf("workload %s (%s, %d pods), want %s of both pods", k, w.origin, len(w.pods), want)
				}
				if w.wl.PodSets[0].Count != tc.count || w.wl.Error != tc.err {
					t.Errorf("count %d, error %q; want %d, %q", w.wl.PodSets[0].Count, w.wl.Error, tc.count, tc.err)
				}
			}
		})
	}
	t.Run("running without an admission", func(t *testing.T) {
		h := newHarness(t, quota.Config{})
		p := jobPod("a", nil)
		p.NodeName = "n1"
		h.addPod(p)
		for _, w := range h.c.snapshot().workloads {
			if !strings.Contains(w.wl.Error, "running pod ns/a of workload") || w.admitted {
				t.Errorf("workload %+v, error %q: want refused, not admitted", w.wl, w.wl.Error)
			}
		}
	})
}

// After a restart, a workload preempted before it (its Admit gone with
// its EvictWorkload) whose members still terminate (bound, with an
// Evict) holds the quota they use until they are deleted: a PodGroup's
// as a one-pod workload's, and a Job's. Then the waiting workload is
// admitted.
func TestTerminatingMembersHoldQuotaAfterRestart(t *testing.T) {
	member := func(name string, of func(*model.Pod)) *model.Pod {
		p := labelled(name, 0)
		p.Containers[0].Requests = model.ResourceList{"cpu": 500}
		p.NodeName = "n1"
		of(p)
		return p
	}
	inGroup := func(p *model.Pod) { p.SchedulingGroup = "g" }
	inJob := func(p *model.Pod) {
		p.Runtime = &model.PodRuntime{Owners: []model.OwnerReference{{Kind: integrations.KindJob, Name: "j", UID: "u", Controller: true}}}
	}
	for _, tc := range []struct {
		name string
		of   func(*model.Pod)
		key  string
		// pending adds a pending member of another shape: it holds nothing.
		pending bool
	}{
		{name: "pod group", of: inGroup, key: "ns/g"},
		{name: "pod group with a pending member", of: inGroup, key: "ns/g", pending: true},
		{name: "job", of: inJob, key: "ns/" + integrations.Name("Job", "batch", "j", "u")},
		{name: "job with a pending pod", of: inJob, key: "ns/" + integrations.Name("Job", "batch", "j", "u"), pending: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, quota.Config{})
			oneQueue(t, h)
			h.objects.nodes["n1"] = &model.Node{Name: "n1"}
			h.c.opts.Evicted = func(string) bool { return true }
			m0, m1 := member("m0", tc.of), member("m1", tc.of)
			h.addPod(m0)
			h.addPod(m1)
			if tc.pending {
				p := member("m2", tc.of)
				p.NodeName, p.Containers[0].Requests = "", model.ResourceList{"cpu": 250}
				h.addPod(p)
			}
			waiting := labelled("waiting", 100)
			h.addPod(waiting)
			if err := h.c.round(t.Context(), true); err != nil {
				t.Fatal(err)
			}
			if got := h.log.admissions(); len(got) != 0 {
				t.Fatalf("admitted %v while the victim's members terminate", slices.Collect(maps.Keys(got)))
			}
			st := workloadStatus(t, h.c.Status(), tc.key)
			if st.State != StateEvicting || len(st.PodSets) != 1 || st.PodSets[0].Count != 2 {
				t.Errorf("victim's status %+v, want evicting with its 2 terminating members", st)
			}
			h.objects.mu.Lock()
			delete(h.objects.pods, m0.UID)
			delete(h.objects.pods, m1.UID)
			h.objects.mu.Unlock()
			h.c.Handle(t.Context(), objstore.Event{Kind: objstore.KindPod, Old: m0})
			h.c.Handle(t.Context(), objstore.Event{Kind: objstore.KindPod, Old: m1})
			if err := h.c.round(t.Context(), true); err != nil {
				t.Fatal(err)
			}
			if _, ok := h.log.admissions()[runningKey(waiting)]; !ok {
				t.Errorf("the waiting workload was not admitted once the members were gone: %v", h.log.plans)
			}
		})
	}
}

func workloadStatus(t *testing.T, st Status, key string) WorkloadStatus {
	t.Helper()
	for _, w := range st.Workloads {
		if w.Key == key {
			return w
		}
	}
	t.Fatalf("no status of workload %s in %+v", key, st.Workloads)
	return WorkloadStatus{}
}

// A PodGroup labelled with a queue name is one workload of its members,
// labelled or not: members sent before it are applied again once it is
// queued, gated until it is admitted; one that does not fit keeps its
// members gated.
func TestLabelledPodGroup(t *testing.T) {
	h := newHarness(t, quota.Config{})
	oneQueue(t, h)
	member := func(group, name string, cpu int64) *model.Pod {
		return &model.Pod{UID: "uid-" + name, Namespace: "ns", Name: name, SchedulingGroup: group,
			Containers: []model.Container{{Name: "c", Requests: model.ResourceList{"cpu": cpu}}}}
	}
	m0, m1 := member("g", "m0", 500), member("g", "m1", 500)
	h.addPod(m0)
	h.addPod(m1)
	if got := h.c.Mutate(m0); got != m0 {
		t.Fatal("a member of a group not queued was changed")
	}
	queued := map[string]string{integrations.QueueNameLabel: "lq"}
	for _, g := range []*model.PodGroup{{Namespace: "ns", Name: "g", MinCount: 2, Labels: queued}, {Namespace: "ns", Name: "big", MinCount: 2, Labels: queued}} {
		h.c.Handle(t.Context(), objstore.Event{Kind: objstore.KindPodGroup, New: g})
	}
	b0, b1 := member("big", "b0", 1000), member("big", "b1", 1000)
	h.addPod(b0)
	h.addPod(b1)
	if got := h.c.Mutate(b0).SchedulingGates; !slices.Equal(got, []string{admission.AdmissionGate}) {
		t.Errorf("an unlabelled member of a queued group has gates %v before admission", got)
	}
	if err := h.c.round(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(maps.Keys(h.log.admissions())); !slices.Equal(got, []string{"ns/g"}) {
		t.Fatalf("admitted %v, want the group that fits", got)
	}
	for _, p := range []*model.Pod{m0, m1} {
		if !slices.Contains(h.objects.refreshed, p.Key()) {
			t.Errorf("member %s sent before its group was not applied again", p.Key())
		}
		if got := h.c.Mutate(p).SchedulingGates; len(got) != 0 {
			t.Errorf("admitted member %s has gates %v", p.Key(), got)
		}
	}
	if got := h.c.Mutate(b1).SchedulingGates; !slices.Equal(got, []string{admission.AdmissionGate}) {
		t.Errorf("a member of the group that does not fit has gates %v", got)
	}
	if st := workloadStatus(t, h.c.Status(), "ns/big"); st.QueueName != "lq" || st.State == StateAdmitted {
		t.Errorf("status of the group that does not fit: %+v", st)
	}
}
