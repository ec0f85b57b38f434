package main

import (
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// A NoExecute taint with three pods on its node: untolerated (evicted at
// once), tolerationSeconds 2, tolerated forever. berthd is killed (kill -9)
// during the toleration and stays down past its deadline; restarted, it
// evicts the 2 s pod right after the orchestrator's re-list, and never the
// pod tolerating forever. Each pod gets one Evict, cause TAINT.
func TestTaintEvictionAcrossKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs berthd")
	}
	bin := buildBerthd(t)
	dir := t.TempDir()
	sock := filepath.Join(dir, "berthd.sock")
	args := []string{"--listen", "unix://" + sock, "--metrics-listen", "", "--data-dir", filepath.Join(dir, "data")}

	first := startBerthd(t, bin, args...)
	conn := dial(t, sock)
	w := watchAll(t, conn, 0)
	pods := []*berthv1.Object{
		tolerating("untolerated", nil, false),
		tolerating("tol2", proto.Int64(2), true),
		tolerating("forever", nil, true),
	}
	syncAll(t, conn, append([]*berthv1.Object{wireNode("n1")}, pods...))
	taintedAt := time.Now()
	syncAll(t, conn, []*berthv1.Object{taintedNode()})
	ds := w.waitFor(t, "the untolerated pod evicted", func(ds []*berthv1.Decision) bool { return len(taintEvicts(t, ds)) == 1 })
	if got := taintEvicts(t, ds); got[0] != "untolerated" {
		t.Fatalf("evicted %v at once, want untolerated", got)
	}
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-first.exited
	if time.Since(taintedAt) >= 2*time.Second {
		t.Skip("the machine was too slow to kill berthd within the 2 s toleration")
	}
	// Down past the deadline: it passes while berthd is not running.
	time.Sleep(time.Until(taintedAt.Add(2500 * time.Millisecond)))

	startBerthd(t, bin, args...)
	conn = dial(t, sock)
	w = watchAll(t, conn, 1)
	// The orchestrator deleted the untolerated pod; it re-lists the rest.
	resyncAll(t, conn, []*berthv1.Object{taintedNode(), pods[1], pods[2]})
	ds = w.waitFor(t, "tol2 evicted after the restart", func(ds []*berthv1.Decision) bool { return len(taintEvicts(t, ds)) == 2 })
	if got := taintEvicts(t, ds); got[1] != "tol2" {
		t.Errorf("evicted %v, want untolerated then tol2", got)
	}
}

// taintEvicts lists the pods of the Evict decisions, failing on one not
// caused by a taint.
func taintEvicts(t *testing.T, ds []*berthv1.Decision) []string {
	t.Helper()
	var out []string
	for _, d := range ds {
		if e := d.GetEvict(); e != nil {
			if e.GetCause() != berthv1.EvictCause_EVICT_CAUSE_TAINT {
				t.Fatalf("Evict of %s with cause %v", e.GetVictim().GetName(), e.GetCause())
			}
			out = append(out, e.GetVictim().GetName())
		}
	}
	return out
}

func taintedNode() *berthv1.Object {
	n := wireNode("n1")
	n.GetNode().Taints = []*berthv1.Taint{{Key: "maintenance", Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_EXECUTE}}
	return n
}

// tolerating is a pod running on n1 that tolerates the maintenance taint
// (for seconds, or forever when seconds is nil) when tolerates is set.
func tolerating(name string, seconds *int64, tolerates bool) *berthv1.Object {
	o := wirePod(name, "n1", 0)
	if tolerates {
		o.GetPod().Tolerations = []*berthv1.Toleration{{
			Key: "maintenance", Operator: berthv1.TolerationOperator_TOLERATION_OPERATOR_EXISTS,
			Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_EXECUTE, TolerationSeconds: seconds,
		}}
	}
	return o
}
