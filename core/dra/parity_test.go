package dra_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
)

var (
	update     = flag.Bool("update", false, "regenerate testdata/oracle with kubeoracle")
	oraclePath = flag.String("oracle", "/tmp/kubeoracle", "the kubeoracle binary -update runs")
)

// corpusSeeds are the random clusters of testdata/oracle.
func corpusSeeds() []uint64 {
	var out []uint64
	for s := uint64(1); s <= 40; s++ {
		out = append(out, s)
	}
	return out
}

// oracleLine is the part of a kubeoracle place line this test reads.
type oracleLine struct {
	Pod      string `json:"pod"`
	Result   string `json:"result"`
	Node     string `json:"node"`
	Message  string `json:"message"`
	Feasible []string
	Reasons  map[string][]string `json:"reasons"`
	Claims   map[string]struct {
		Claim   string   `json:"claim"`
		Devices []string `json:"devices"`
	} `json:"claims"`
}

// TestOracleUpdate regenerates the corpus and its kubeoracle traces
// (go test ./core/dra -run TestOracleUpdate -update).
func TestOracleUpdate(t *testing.T) {
	if !*update {
		t.Skip("run with -update to regenerate testdata/oracle")
	}
	for _, seed := range corpusSeeds() {
		base := filepath.Join("testdata", "oracle", fmt.Sprintf("rand-%02d", seed))
		if err := os.WriteFile(base+".yaml", []byte(randCluster(seed)), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(*oraclePath, "place", "-f", base+".yaml").Output()
		if err != nil {
			t.Fatalf("kubeoracle on %s: %v", base, err)
		}
		if err := os.WriteFile(base+".jsonl", out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Allocation parity with kube-scheduler v1.36.4 (kubeoracle's real
// DynamicResources plugin) on random DRA clusters: replaying the oracle's
// decisions in order, core/dra allocates claims on every node the oracle
// found feasible, fails on every node it rejected with "cannot allocate
// all claims", picks the very devices it picked on the chosen node, and
// names template claims as it does; kube's allocator alone, and with the
// precheck and the slice filter (a memo of its own: the objects are not a
// tracker's, so nothing is kept between pods and the node memo is off).
func TestOracleParity(t *testing.T) {
	for _, seed := range corpusSeeds() {
		base := filepath.Join("testdata", "oracle", fmt.Sprintf("rand-%02d", seed))
		for _, short := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/shortcuts=%v", filepath.Base(base), short), func(t *testing.T) {
				c, err := manifest.LoadFiles(base + ".yaml")
				if err != nil {
					t.Fatal(err)
				}
				data, err := os.ReadFile(base + ".jsonl")
				if err != nil {
					t.Fatal(err)
				}
				rp := newReplay(t, c)
				if short {
					rp.memo, rp.short = dra.NewSelectorMemo(), dra.AllShortcuts()
				}
				sc := bufio.NewScanner(bytes.NewReader(data))
				sc.Buffer(nil, 1<<20)
				for sc.Scan() {
					var l oracleLine
					if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
						t.Fatal(err)
					}
					rp.check(l)
				}
			})
		}
	}
}

type replay struct {
	t     *testing.T
	memo  *dra.SelectorMemo
	short dra.Shortcuts
	objs  *dra.Objects
	pods  map[string]*model.Pod
	nodes map[string]*corev1.Node
}

func newReplay(t *testing.T, c *manifest.Cluster) *replay {
	rp := &replay{t: t, objs: c.Devices, pods: map[string]*model.Pod{}, nodes: map[string]*corev1.Node{}}
	for _, p := range c.Pods {
		rp.pods[p.Key()] = p
	}
	for _, n := range c.Nodes {
		rp.nodes[n.Name] = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels}}
	}
	return rp
}

// check compares one oracle line with core/dra and, for a bound pod,
// records its allocations as the oracle's PreBind does.
func (rp *replay) check(l oracleLine) {
	t := rp.t
	pod := rp.pods[l.Pod]
	if pod == nil {
		t.Fatalf("oracle line for unknown pod %s", l.Pod)
	}
	claims, missing := rp.claimsOf(pod)
	if l.Result == "gated" {
		if !missing {
			t.Errorf("%s: the oracle waits for a claim, core/dra has them all", l.Pod)
		}
		return
	}
	if missing {
		t.Fatalf("%s: a claim is missing, the oracle has a %s line", l.Pod, l.Result)
	}
	// A binding-cycle failure (the oracle's PreBind writing one claim
	// twice, for two entries of the pod naming it) comes after the claim's
	// allocation was written: the devices stay allocated.
	bindFailed := l.Result == "error" && l.Node != ""
	var pending []*resourceapi.ResourceClaim
	for _, c := range claims {
		if c.Status.Allocation == nil {
			pending = append(pending, c)
		}
	}
	alloc, err := dra.NewAllocator(t.Context(), rp.objs, dra.AllocatedState(rp.allClaims()), dra.NewCELCache(), rp.memo, rp.short, pending)
	if err != nil {
		t.Fatal(err)
	}
	results := map[string][]resourceapi.AllocationResult{}
	// Nodes in name order, the oracle's order here: the first node where
	// a CEL runtime error happens names the error.
	for _, name := range slices.Sorted(maps.Keys(rp.nodes)) {
		res, ok, err := alloc.Allocate(t.Context(), rp.nodes[name])
		if err != nil {
			// A CEL runtime error fails the attempt, in kube's words.
			if l.Result != "error" || !strings.HasSuffix(l.Message, ": "+err.Error()) {
				t.Errorf("%s on %s: %v; the oracle: %s %q", l.Pod, name, err, l.Result, l.Message)
			}
			return
		}
		if l.Result == "error" {
			if ok {
				results[name] = res
			}
			continue
		}
		rejected := slices.Contains(l.Reasons[name], "cannot allocate all claims")
		if ok == rejected && len(pending) > 0 && (rejected || slices.Contains(l.Feasible, name)) {
			t.Errorf("%s on %s: core/dra allocates: %t, the oracle's reasons: %v", l.Pod, name, ok, l.Reasons[name])
		}
		if ok {
			results[name] = res
		}
	}
	if l.Result != "bound" && !bindFailed {
		return
	}
	if len(pending) > 0 && results[l.Node] == nil {
		t.Fatalf("%s: the oracle bound it to %s, core/dra cannot allocate there", l.Pod, l.Node)
	}
	for i, c := range pending {
		if slices.Index(pending, c) < i {
			continue // a claim named twice: its first allocation is the one written
		}
		done := c.DeepCopy()
		done.Status.Allocation = &results[l.Node][i]
		rp.objs.Claims[dra.Key(c.Namespace, c.Name)] = done
	}
	if bindFailed {
		return
	}
	got := map[string][]string{}
	want := map[string][]string{}
	for _, pc := range pod.ResourceClaims {
		c := rp.objs.Claims[dra.Key(pod.Namespace, pc.ClaimName)]
		key := pc.Name + " " + pod.Namespace + "/" + pc.ClaimName
		for _, r := range c.Status.Allocation.Devices.Results {
			got[key] = append(got[key], r.Driver+"/"+r.Pool+"/"+r.Device)
		}
		o := l.Claims[pc.Name]
		want[pc.Name+" "+o.Claim] = o.Devices
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s on %s: claims and devices (-oracle +core/dra):\n%s", l.Pod, l.Node, diff)
	}
}

// claimsOf returns the pod's claims; missing is set when one does not
// exist (a template that was not given).
func (rp *replay) claimsOf(p *model.Pod) (out []*resourceapi.ResourceClaim, missing bool) {
	for _, pc := range p.ResourceClaims {
		c, ok := rp.objs.Claims[dra.Key(p.Namespace, pc.ClaimName)]
		if !ok {
			return nil, true
		}
		out = append(out, c)
	}
	return out, false
}

func (rp *replay) allClaims() []*resourceapi.ResourceClaim {
	keys := make([]string, 0, len(rp.objs.Claims))
	for k := range rp.objs.Claims {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*resourceapi.ResourceClaim, 0, len(keys))
	for _, k := range keys {
		out = append(out, rp.objs.Claims[k])
	}
	return out
}
