package daemon

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// corpus is core/pressure's parity corpus, recorded from the real kubelet.
const corpus = "../../core/pressure/testdata/oracle/"

func memPod(name, node string, request int64) *berthv1.Object {
	p := podWire(name, 100, withNode(node))
	p.Containers[0].Name = map[string]string{"web-a": "web", "web-b": "web", "batch": "worker"}[name]
	p.Containers[0].Requests["memory"] = request
	return podObj(p)
}

// TestPressureReportEvictsKubesChoice: the kubelet Summary of the corpus
// scenario mem-over-request, reported to berthd, evicts the pod the real
// kubelet evicted (with its grace period and message), streams the Evict
// with cause NODE_PRESSURE, taints the node so that a new pod is not
// placed there, and the node's pressure survives a restart.
func TestPressureReportEvictsKubesChoice(t *testing.T) {
	dir := t.TempDir()
	e := start(t, Config{DataDir: dir})
	e.apply(t, nodeObj("n1", 8000), memPod("web-a", "n1", 1<<30), memPod("web-b", "n1", 2<<30), memPod("batch", "n1", 1<<30))
	w := e.startWatch(t, &berthv1.WatchRequest{})
	summary, err := os.ReadFile(corpus + "mem-over-request.stats0.json")
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Evicted            string `json:"evicted"`
		GracePeriodSeconds int64  `json:"gracePeriodSeconds"`
		Message            string `json:"message"`
	}
	oracle, err := os.ReadFile(corpus + "mem-over-request.oracle.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(oracle, &want); err != nil {
		t.Fatal(err)
	}

	stats := berthv1.NewStatsServiceClient(e.conn)
	resp, err := stats.ReportNodeStats(t.Context(), &berthv1.ReportNodeStatsRequest{SummaryJson: summary})
	if err != nil {
		t.Fatalf("ReportNodeStats: %v", err)
	}
	ev := resp.GetEvict()
	got := struct {
		Evicted            string
		GracePeriodSeconds int64
		Message            string
	}{ev.GetVictim().GetNamespace() + "/" + ev.GetVictim().GetName(), ev.GetGracePeriodSeconds(), ev.GetReason()}
	if d := cmp.Diff(want.Evicted+"|"+want.Message, got.Evicted+"|"+got.Message); d != "" || got.GracePeriodSeconds != want.GracePeriodSeconds {
		t.Fatalf("eviction (-kubelet +berth):\n%s\ngrace %d, kubelet's %d", d, got.GracePeriodSeconds, want.GracePeriodSeconds)
	}
	if c := resp.GetPressure().GetConditions(); !cmp.Equal(c, []string{"MemoryPressure"}) {
		t.Errorf("conditions %v, want [MemoryPressure]", c)
	}
	w.waitFor(t, "the Evict of web-a", func(ds []*berthv1.Decision) bool {
		for _, d := range ds {
			if v := d.GetEvict(); v != nil && v.GetVictim().GetName() == "web-a" && v.GetCause() == berthv1.EvictCause_EVICT_CAUSE_NODE_PRESSURE {
				return true
			}
		}
		return false
	})

	// Scheduling avoids the node at once: its memory-pressure taint.
	e.apply(t, podObj(podWire("late", 100)))
	w.waitFor(t, "late unschedulable for the memory-pressure taint (kube 1.36 does not name the taint)", func(ds []*berthv1.Decision) bool {
		for _, d := range ds {
			if d.GetPod().GetName() != "late" {
				continue
			}
			if !strings.Contains(d.GetUnschedulable().GetMessage(), "1 node(s) had untolerated taint(s)") {
				t.Fatalf("late: %v, want Unschedulable for the memory-pressure taint", d)
			}
			return true
		}
		return false
	})

	// Stats for a pod that is not on the node are refused, naming it.
	bad := strings.Replace(string(summary), `"batch"`, `"ghost"`, 1)
	_, err = stats.ReportNodeStats(t.Context(), &berthv1.ReportNodeStatsRequest{SummaryJson: []byte(bad)})
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "pod default/ghost is not on node n1") {
		t.Errorf("stats of an unknown pod: %v, want FAILED_PRECONDITION naming default/ghost", err)
	}
	_, err = stats.ReportNodeStats(t.Context(), &berthv1.ReportNodeStatsRequest{SummaryJson: []byte(`{"node":{"nodeName":"n9"}}`)})
	if status.Code(err) != codes.NotFound {
		t.Errorf("stats of an unknown node: %v, want NOT_FOUND", err)
	}

	// The pressure is durable.
	e.shutdown(t)
	e = start(t, Config{DataDir: dir})
	np, err := berthv1.NewStatsServiceClient(e.conn).GetNodePressure(t.Context(), &berthv1.GetNodePressureRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(np.GetNodes()) != 1 || !cmp.Equal(np.GetNodes()[0].GetConditions(), []string{"MemoryPressure"}) {
		t.Errorf("after a restart: %v, want n1 under MemoryPressure", np.GetNodes())
	}
}
