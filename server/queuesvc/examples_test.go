package queuesvc

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota/admission"
)

// admitted is one admission: "clusterQueue podSet/resource=flavor ...".
func admittedText(cq string, flavors map[string]string) string {
	var b strings.Builder
	b.WriteString(cq)
	for _, k := range slices.Sorted(maps.Keys(flavors)) {
		b.WriteString(" " + k + "=" + flavors[k])
	}
	return b.String()
}

// The controller admits exactly what admission.RunWith (with the
// controller's options) admits on the engine's examples and on berthctl's
// queued pods, where no preemption occurs: the same workloads, to the same
// ClusterQueues, with the same flavors. Examples that preempt are left to
// the daemon's test (the controller admits their preemptors a round
// later, once the victims are gone).
func TestAdmissionsMatchRunWith(t *testing.T) {
	files, err := filepath.Glob("../../core/quota/admission/testdata/examples/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "../../cmd/berthctl/testdata/queueing-pods.yaml")
	compared, admissions := 0, 0
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			c, err := manifest.LoadFiles(f)
			if err != nil {
				t.Fatal(err)
			}
			lines, sum, err := admission.RunWith(t.Context(), c.Queueing, c.Namespaces, runOptions)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range sum.Events {
				if ev.Kind == admission.EventPreempted {
					t.Skipf("preempts (%s by %s)", ev.Workload, ev.By)
				}
			}
			sent := map[string]bool{}
			for _, w := range c.Queueing.Workloads {
				if w.Admission != nil {
					sent[w.Key()] = true
				}
			}
			want := map[string]string{}
			for _, l := range lines {
				if l.Result == admission.ResultAdmitted && !sent[l.Workload] {
					want[l.Workload] = admittedText(l.ClusterQueue, l.Flavors)
				}
			}

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
					kueue = append(kueue, w) // explicit: the pods' are the controller's to derive
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
				h.addPod(p)
			}
			if err := h.c.round(t.Context(), true); err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for k, a := range h.log.admissions() {
				flavors := map[string]string{}
				for _, ps := range a.PodSets {
					for r, f := range ps.Flavors {
						flavors[ps.Name+"/"+r] = f
					}
				}
				got[k] = admittedText(a.ClusterQueue, flavors)
			}
			// Pods found running are admitted durably as they run: not the
			// run's admissions.
			for _, p := range c.Pods {
				if p.NodeName != "" {
					delete(got, runningKey(p))
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("admissions (-RunWith +controller):\n%s", diff)
			}
			// A second round over the same state decides nothing new.
			before := len(h.log.plans)
			if err := h.c.round(t.Context(), true); err != nil {
				t.Fatal(err)
			}
			if len(h.log.plans) != before {
				t.Errorf("a second round submitted %v", h.log.plans[before:])
			}
			compared++
			admissions += len(want)
		})
	}
	if compared < 3 || admissions < 10 {
		t.Errorf("only %d inputs and %d admissions compared", compared, admissions)
	}
}

func runningKey(p *model.Pod) string { k, _, _ := workloadOfPod(p); return k }
