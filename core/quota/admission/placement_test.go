package admission_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/quota/admission"
)

// slots is a PlacementChecker with room for a number of pods, each on
// node "n<i>", that records what it was asked.
type slots struct {
	free     int
	asked    []admission.PlacementRequest
	released []string
	held     map[string]int
}

func (s *slots) Place(_ context.Context, w admission.PlacementRequest) (map[string]string, string, error) {
	s.asked = append(s.asked, w)
	n := 0
	for _, ps := range w.PodSets {
		n += int(ps.Count)
	}
	if n > s.free {
		return nil, "not enough room", nil
	}
	out := map[string]string{}
	for _, ps := range w.PodSets {
		for i := range int(ps.Count) {
			out[w.PodName(ps, i)] = "n" + string(rune('0'+s.free))
			s.free--
		}
	}
	s.held[w.Workload] = n
	return out, "", nil
}

func (s *slots) Release(_ context.Context, workload string) error {
	s.released = append(s.released, workload)
	s.free += s.held[workload]
	delete(s.held, workload)
	return nil
}

const placementScenario = `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: a}
spec:
  nodeLabels: {pool: a}
  tolerations: [{key: dedicated, operator: Exists, effect: NoSchedule}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: cq
  annotations: {berth.dev/admission-placement: "true"}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: a, resources: [{name: cpu, nominalQuota: 8}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: ml, name: lq}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {namespace: ml, name: gang}
spec:
  queueName: lq
  podSets:
  - name: workers
    count: 4
    template: {spec: {nodeSelector: {disk: ssd}, containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {namespace: ml, name: small}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 2
    template: {spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}}
`

// TestPlacementAwareAdmission: with a PlacementChecker, a ClusterQueue
// annotated berth.dev/admission-placement admits a workload only when the
// checker places all its pods (here a gang of 4 with room for 3 waits,
// as a workload that does not fit its quota, and the next one is
// admitted with its placement); the checker is asked for the pods with
// their flavor's node labels and tolerations. Without a checker the same
// ClusterQueue admits as Kueue does, quota only.
func TestPlacementAwareAdmission(t *testing.T) {
	c, err := manifest.Decode("placement.yaml", []byte(placementScenario))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Queueing.ClusterQueues[0].AdmissionPlacement {
		t.Fatal("the annotation was not read")
	}
	checker := &slots{free: 3, held: map[string]int{}}
	lines, _, err := admission.RunWith(context.Background(), c.Queueing, c.Namespaces, admission.Options{Placement: checker})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]admission.Line{}
	for _, l := range lines {
		got[l.Workload] = l
	}
	if g := got["ml/gang"]; g.Result != admission.ResultInadmissible || !strings.Contains(g.Message, "couldn't place the workload on the nodes: not enough room") {
		t.Errorf("gang: %+v, want inadmissible for placement", g)
	}
	if s := got["ml/small"]; s.Result != admission.ResultAdmitted || len(s.Placement) != 2 {
		t.Errorf("small: %+v, want admitted with 2 pods placed", s)
	}
	if len(checker.asked) == 0 {
		t.Fatal("the checker was not asked")
	}
	ps := checker.asked[0].PodSets[0]
	want := admission.PlacementPodSet{Name: "workers", Count: 4, Requests: ps.Requests, NodeSelector: map[string]string{"disk": "ssd", "pool": "a"}, Tolerations: ps.Tolerations}
	keys := map[string]int{}
	for _, tol := range ps.Tolerations {
		keys[tol.Key]++
	}
	if d := cmp.Diff(want, ps); d != "" || keys["dedicated"] != 1 || keys["node.kubernetes.io/not-ready"] > 1 || ps.Requests["cpu"] != 1000 {
		t.Errorf("pod set asked (-want +got):\n%s\n%+v", d, ps)
	}

	kueue, _, err := admission.Run(context.Background(), c.Queueing, c.Namespaces)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range kueue {
		if l.Result != admission.ResultAdmitted || l.Placement != nil {
			t.Errorf("without a checker: %+v, want admitted on quota alone", l)
		}
	}
}

// TestPlacementRefusesBadAnnotation: the annotation's value is checked.
func TestPlacementRefusesBadAnnotation(t *testing.T) {
	_, err := manifest.Decode("placement.yaml", []byte(strings.Replace(placementScenario, `"true"`, `"yes"`, 1)))
	if err == nil || !strings.Contains(err.Error(), "metadata.annotations[berth.dev/admission-placement]") {
		t.Errorf("err = %v, want one naming the annotation", err)
	}
}

// TestPlacementNoThrottle: two ClusterQueues without a cohort share the
// nodes when their admission knows placement, so the no-throttle pass
// runs them together and places what Kueue's cycles would: the second
// ClusterQueue's gang, of higher priority, is tried first in the first
// cycle and takes the room (run apart, the first ClusterQueue's would).
func TestPlacementNoThrottle(t *testing.T) {
	second := strings.NewReplacer("name: cq\n", "name: cq2\n", "clusterQueue: cq}", "clusterQueue: cq2}", "namespace: ml", "namespace: ml2", "  queueName: lq\n  podSets:\n  - name: workers", "  queueName: lq\n  priority: 10\n  podSets:\n  - name: workers").Replace(placementScenario[strings.Index(placementScenario, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue"):])
	c, err := manifest.Decode("placement.yaml", []byte(placementScenario+second))
	if err != nil {
		t.Fatal(err)
	}
	run := func(o admission.Options) map[string]string {
		o.Placement = &slots{free: 4, held: map[string]int{}}
		lines, _, err := admission.RunWith(context.Background(), c.Queueing, c.Namespaces, o)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, l := range lines {
			out[l.Workload] = l.Result
		}
		return out
	}
	cycles, pass := run(admission.Options{Quiesce: true}), run(admission.Options{NoThrottle: true})
	if d := cmp.Diff(cycles, pass); d != "" {
		t.Errorf("no-throttle differs from the cycles (-cycles +pass):\n%s", d)
	}
	admitted := 0
	for _, r := range pass {
		if r == admission.ResultAdmitted {
			admitted++
		}
	}
	if len(pass) != 4 || admitted != 1 || pass["ml2/gang"] != admission.ResultAdmitted {
		t.Errorf("results %v: want the higher-priority gang (of the second ClusterQueue) to take the 4 slots and nothing else placed", pass)
	}
}
