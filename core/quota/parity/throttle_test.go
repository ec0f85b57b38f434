package parity

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/quota/admission"
)

// outcome is what admission decided for a workload, without the trace:
// where it is admitted and on which flavors, whom it preempted, and who
// preempted it how many times.
type outcome struct {
	Admitted     bool
	ClusterQueue string
	Flavors      map[string]string
	Counts       map[string]int32
	Victims      []string
	PreemptedBy  string
	Preemptions  int
}

func outcomes(lines []admission.Line) map[string]outcome {
	out := make(map[string]outcome, len(lines))
	for _, l := range lines {
		o := outcome{Admitted: l.Result == admission.ResultAdmitted, Victims: l.Victims, PreemptedBy: l.PreemptedBy, Preemptions: l.Preemptions}
		if o.Admitted {
			o.ClusterQueue, o.Flavors, o.Counts = l.ClusterQueue, l.Flavors, l.Counts
		}
		out[l.Workload] = o
	}
	return out
}

// throttleCase compares a scenario's outcomes with NoThrottle and with
// the cycles run until quiet (each with and without Progress) and says
// how many workloads it compared, whether the cycle engine hit its
// limit, and whether kueueoracle's stop rule cut the cycles short of
// that outcome.
func throttleCase(t *testing.T, name string, c *manifest.Cluster) (n int, capped, cut bool) {
	t.Helper()
	kueue, _, err := admission.Run(context.Background(), c.Queueing, c.Namespaces)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, progress := range []bool{false, true} {
		cycles, sum, err := admission.RunWith(context.Background(), c.Queueing, c.Namespaces, admission.Options{Progress: progress, Quiesce: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pass, psum, err := admission.RunWith(context.Background(), c.Queueing, c.Namespaces, admission.Options{Progress: progress, NoThrottle: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d := cmp.Diff(outcomes(cycles), outcomes(pass)); d != "" {
			t.Errorf("%s (progress %v): NoThrottle differs from the cycles (%d cycles, %s; -cycles +no-throttle):\n%s", name, progress, sum.Cycles, sum.Reason, d)
		}
		if psum.Cycles > sum.Cycles {
			t.Errorf("%s (progress %v): NoThrottle's longest group ran %d cycles, the cycle engine %d", name, progress, psum.Cycles, sum.Cycles)
		}
		capped = capped || strings.HasPrefix(sum.Reason, "stopped after")
		if !progress {
			cut = !cmp.Equal(outcomes(kueue), outcomes(cycles))
		}
	}
	return len(c.Queueing.Workloads), capped, cut
}

// TestNoThrottle is the differential proof of admission.Options.NoThrottle:
// on every corpus scenario (whose cycle-by-cycle lines parity holds to
// the oracle) and on random ones with more and deeper queues, the pass
// admits the same workloads in the same ClusterQueues on the same
// flavors and counts, with the same victims and preemptors, as Kueue's
// cycles, one after the other over every ClusterQueue, run until they
// are quiet (Options.Quiesce), and it never runs more cycles in a group
// than they run in all.
func TestNoThrottle(t *testing.T) {
	scenarios, err := filepath.Glob("testdata/scenarios/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(scenarios) == 0 {
		t.Fatal("no scenarios: run TestUpdateGolden -update")
	}
	compared, capped, cut := 0, 0, 0
	for i, path := range scenarios {
		if raceDetector && i%raceStride != 0 {
			continue
		}
		c, err := manifest.LoadFiles(path)
		if err != nil {
			t.Fatal(err)
		}
		n, hit, short := throttleCase(t, filepath.Base(path), c)
		compared += n
		capped += b2i(hit)
		cut += b2i(short)
	}
	kinds := []GenOptions{
		{ClusterQueues: 8, Workloads: 60, Flavors: 2},
		{ClusterQueues: 8, Workloads: 60, Admitted: 10, Flavors: 2, Preemption: true},
		{ClusterQueues: 8, Workloads: 60, Admitted: 8, Flavors: 2, Preemption: true, Hierarchical: true},
		{ClusterQueues: 6, Workloads: 40, Admitted: 8, Flavors: 2, Preemption: true, FairSharing: true},
		{ClusterQueues: 6, Workloads: 40, Admitted: 6, Flavors: 3, Preemption: true, Hierarchical: true, FairSharing: true},
		{ClusterQueues: 6, Workloads: 40, Admitted: 4, Flavors: 3, Preemption: true, V1beta1: true},
	}
	for k, o := range kinds {
		for seed := uint64(7000); seed < 7040; seed++ {
			if raceDetector && seed%raceStride != 0 {
				continue
			}
			name := fmt.Sprintf("kind%d-seed%d", k, seed)
			c, err := manifest.Decode(name, []byte(Generate(seed, o)))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			n, hit, short := throttleCase(t, name, c)
			compared += n
			capped += b2i(hit)
			cut += b2i(short)
		}
	}
	t.Logf("%d workloads compared; the cycle engine hit its limit in %d scenarios; kueueoracle's stop rule ended %d scenarios before they were quiet", compared, capped, cut)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
