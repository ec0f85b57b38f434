package tainteviction

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/server/deadlines"
	"github.com/berthsched/berth/server/decisionlog"
	"github.com/berthsched/berth/store/bboltstore"
)

// The corpus under testdata/oracle: per case NAME.yaml (the cluster),
// NAME.events.yaml (timed taint changes), optional NAME.args (the
// oracle's --until) and NAME.oracle.jsonl, what the real taint-eviction
// controller did, recorded with
//
//	kubeoracle taints -f NAME.yaml --events NAME.events.yaml [$(cat NAME.args)]
//
// (see /work/shared/kubeoracle/README.md; CI does not build the oracle).
// Berth's controller runs the same case on a simulated clock; the pods it
// evicts must be the oracle's, each within oracleLate of the oracle's time
// (rounded to its 100 ms): the oracle runs in real time and acts a few ms
// after a deadline, which a busy machine may round up.
var oracleLateness = cmp.Comparer(func(a, b eviction) bool {
	late := a.At - b.At
	if late < 0 {
		late = -late
	}
	return a.Pod == b.Pod && late <= oracleLate+1e-9
})

const oracleLate = 0.1

type taintEvent struct {
	At     string `json:"at"`
	Node   string `json:"node"`
	Taints []struct {
		Key    string `json:"key"`
		Value  string `json:"value"`
		Effect string `json:"effect"`
	} `json:"taints"`
}

type eviction struct {
	Pod string  `json:"pod"`
	At  float64 `json:"at"`
}

func TestOracleParity(t *testing.T) {
	cases, err := filepath.Glob("testdata/oracle/*.events.yaml")
	if err != nil || len(cases) < 8 {
		t.Fatalf("corpus: %d cases, %v", len(cases), err)
	}
	for _, ev := range cases {
		name := strings.TrimSuffix(filepath.Base(ev), ".events.yaml")
		t.Run(name, func(t *testing.T) {
			want := readOracle(t, "testdata/oracle/"+name+".oracle.jsonl")
			got := runCase(t, "testdata/oracle/"+name)
			if diff := cmp.Diff(want, got, oracleLateness); diff != "" {
				t.Errorf("evictions (-oracle +berth):\n%s", diff)
			}
		})
	}
}

func readOracle(t *testing.T, path string) []eviction {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []eviction
	sc := bufio.NewScanner(bytes.NewReader(data))
	done := false
	for sc.Scan() {
		var line struct {
			eviction
			Done bool `json:"done"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if line.Done {
			done = true
			continue
		}
		out = append(out, line.eviction)
	}
	if !done {
		t.Fatalf("%s: the oracle's run did not finish", path)
	}
	sortEvictions(out)
	return out
}

func sortEvictions(es []eviction) {
	slices.SortFunc(es, func(a, b eviction) int {
		if a.At != b.At {
			return int(math.Copysign(1, a.At-b.At))
		}
		return strings.Compare(a.Pod, b.Pod)
	})
}

// runCase replays a case on a simulated clock and returns Berth's
// evictions, in seconds from the start.
func runCase(t *testing.T, base string) []eviction {
	t.Helper()
	ctx := t.Context()
	cluster, err := manifest.LoadFiles(base + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	events := readEvents(t, base+".events.yaml")
	until := time.Duration(math.MaxInt64)
	if args, err := os.ReadFile(base + ".args"); err == nil {
		f := strings.Fields(string(args))
		if len(f) != 2 || f[0] != "--until" {
			t.Fatalf("%s.args: want --until D, got %q", base, args)
		}
		if until, err = time.ParseDuration(f[1]); err != nil {
			t.Fatal(err)
		}
	}

	h := newHarness(t)
	for _, n := range cluster.Nodes {
		must(t, h.store.Upsert(ctx, n))
	}
	for _, p := range cluster.Pods {
		must(t, h.store.Upsert(ctx, p))
	}
	must(t, h.sub.Wait(ctx))
	h.timers.Start()
	for _, ev := range events {
		h.advance(ctx, ev.at)
		n, _ := h.store.Node(ev.node)
		cp := *n
		cp.Taints = ev.taints
		must(t, h.store.Upsert(ctx, &cp))
		must(t, h.sub.Wait(ctx)) // the controller has handled the change
	}
	h.advance(ctx, until)
	return h.evicted()
}

type event struct {
	at     time.Duration
	node   string
	taints []model.Taint
}

func readEvents(t *testing.T, path string) []event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw []taintEvent
	if err := yaml.Unmarshal(data, &raw); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := make([]event, 0, len(raw))
	for _, r := range raw {
		at, err := time.ParseDuration(r.At)
		if err != nil {
			t.Fatalf("%s: at %q: %v", path, r.At, err)
		}
		e := event{at: at, node: r.Node, taints: []model.Taint{}}
		for _, tt := range r.Taints {
			e.taints = append(e.taints, model.Taint{Key: tt.Key, Value: tt.Value, Effect: model.TaintEffect(tt.Effect)})
		}
		out = append(out, e)
	}
	return out
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// harness is the controller subscribed to an object store over fake
// pods and nodes, with a recording evictor and real deadlines, on a clock
// the test moves.
type harness struct {
	t      *testing.T
	ctl    *Controller
	timers *deadlines.Timers
	store  *objstore.Store
	sub    *objstore.Subscription

	mu   sync.Mutex
	now  time.Time
	pods map[string]*model.Pod
	out  []eviction
}

func newHarness(t *testing.T) *harness {
	st, err := bboltstore.Open(t.Context(), t.TempDir(), bboltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	h := &harness{t: t, now: t0, pods: map[string]*model.Pod{}}
	h.timers = deadlines.New(st, deadlines.Options{})
	h.store = objstore.New(h.kinds(), objstore.Options{})
	h.ctl = New(h.store, h, h, h.timers, h.clock, nil)
	h.sub = h.store.Subscribe(t.Context(), "taint-eviction", h.ctl.Handle)
	return h
}

// kinds hold the nodes nowhere but in the store, the pods in h.pods.
func (h *harness) kinds() *objstore.Registry {
	r := objstore.NewRegistry()
	none := func(context.Context, objstore.Ref) error { return nil }
	must(h.t, objstore.Register(r, objstore.Type[*model.Node]{
		Kind:   objstore.KindNode,
		Ref:    func(n *model.Node) objstore.Ref { return objstore.Ref{Name: n.Name} },
		Upsert: func(context.Context, *model.Node) error { return nil },
		Delete: none,
		List:   func() []*model.Node { return nil },
	}))
	must(h.t, objstore.Register(r, objstore.Type[*model.Pod]{
		Kind: objstore.KindPod,
		Ref:  func(p *model.Pod) objstore.Ref { return objstore.Ref{Namespace: p.Namespace, Name: p.Name, UID: p.UID} },
		Upsert: func(_ context.Context, p *model.Pod) error {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.pods[p.UID] = p
			return nil
		},
		Delete: none,
		List:   func() []*model.Pod { return nil },
		Get:    func(ref objstore.Ref) (*model.Pod, bool) { return h.Pod(ref.UID) },
	}))
	return r
}

func (h *harness) clock() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.now
}

// advance fires the deadlines due up to t0+to, each at its own time.
func (h *harness) advance(ctx context.Context, to time.Duration) {
	end := t0.Add(to)
	for {
		next, ok := h.timers.Next()
		if !ok || next.After(end) {
			break
		}
		h.moveTo(next)
		if h.timers.FireDue(ctx, next) > 0 {
			h.t.Fatal("a deadline failed to fire")
		}
	}
	h.moveTo(end)
}

// moveTo moves the clock forward to at (never back).
func (h *harness) moveTo(at time.Time) {
	h.mu.Lock()
	if at.After(h.now) {
		h.now = at
	}
	h.mu.Unlock()
}

func (h *harness) Pod(uid string) (*model.Pod, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.pods[uid]
	return p, ok
}

// Evict records the eviction and makes the pod terminating (an Evict is
// kube's deletion: the oracle records deletions).
func (h *harness) Evict(_ context.Context, e framework.Eviction) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.pods[e.Victim.UID]
	if p.Terminating {
		return fmt.Errorf("pod %s: %w", p.Key(), decisionlog.ErrAlreadyEvicted)
	}
	cp := *p
	cp.Terminating = true
	h.pods[p.UID] = &cp
	at := math.Round(h.now.Sub(t0).Seconds()*10) / 10
	h.out = append(h.out, eviction{Pod: p.Key(), At: at})
	return nil
}

func (h *harness) evicted() []eviction {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := slices.Clone(h.out)
	sortEvictions(out)
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
