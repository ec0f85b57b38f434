package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/server/daemon"
)

// simCase is a cluster simulated offline and in berthd, with the
// --config the offline run takes ("" for none).
type simCase struct {
	name, cluster, config string
}

// simCases are every cluster offline simulate is checked on: the goldens
// of testdata/simulate (workloads and their written-out pods alike), the
// oracle's examples and the shared scenarios as core/simulate keeps them
// (testdata/oracle), and ../shared/scenarios itself when it lies beside
// the repository, as in CI.
func simCases(t *testing.T) []simCase {
	t.Helper()
	var out []simCase
	add := func(prefix, pattern string, configOf func(base string) string) {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, ".config.yaml") {
				continue
			}
			out = append(out, simCase{name: prefix + filepath.Base(f), cluster: f, config: configOf(strings.TrimSuffix(f, ".yaml"))})
		}
	}
	ownConfig := func(base string) string {
		if _, err := os.Stat(base + ".config.yaml"); err == nil {
			return base + ".config.yaml"
		}
		return ""
	}
	none := func(string) string { return "" }
	add("golden/", filepath.Join("testdata", "simulate", "*.yaml"), ownConfig)
	oracle := filepath.Join("..", "..", "core", "simulate", "testdata", "oracle")
	add("oracle/", filepath.Join(oracle, "*.yaml"), none)
	out = append(out, simCase{name: "oracle/resource-fit.mostallocated", cluster: filepath.Join(oracle, "resource-fit.yaml"), config: filepath.Join(oracle, "config-mostallocated.config.yaml")})
	shared := filepath.Join("..", "..", "..", "shared", "scenarios")
	if _, err := os.Stat(shared); err == nil {
		add("shared/", filepath.Join(shared, "*.yaml"), none)
	} else {
		t.Logf("no %s beside the repository: its scenarios are checked through their copies in %s", shared, oracle)
	}
	if len(out) < 40 {
		t.Fatalf("only %d clusters found", len(out))
	}
	return out
}

// TestSimulateServerMatchesOffline runs every cluster offline and with
// --server against a berthd started with --deterministic and the
// cluster's scheduler configuration, and requires byte-identical output,
// -o json and -o text. The berthds hold nothing before and after.
func TestSimulateServerMatchesOffline(t *testing.T) {
	matchOffline(t, simCases(t), "json", "text")
}

// TestSimulateServerMatchesOfflineOnParityCorpus does the same on the
// parity corpus of core/parity (random clusters, the extended ones with
// several profiles, configurations and sampled percentages, and the ones
// with node images), -o json
// only: -o text prints the same lines. Under the race detector, every
// fourth cluster (race_test.go).
func TestSimulateServerMatchesOfflineOnParityCorpus(t *testing.T) {
	parity := filepath.Join("..", "..", "core", "parity", "testdata")
	var cases []simCase
	for _, dir := range []string{filepath.Join(parity, "clusters"), filepath.Join(parity, "extended", "clusters"), filepath.Join(parity, "images", "clusters")} {
		files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			cases = append(cases, simCase{name: filepath.Base(dir) + "/" + filepath.Base(f), cluster: f})
		}
	}
	if len(cases) < 100 {
		t.Fatalf("only %d clusters under %s", len(cases), parity)
	}
	if raceDetector {
		var every4th []simCase
		for i := 0; i < len(cases); i += 4 {
			every4th = append(every4th, cases[i])
		}
		cases = every4th
	}
	matchOffline(t, cases, "json")
}

// matchOffline simulates each case offline and with --server, printing
// each output, and requires the same bytes. Each configuration gets its
// own berthd, started before the cases run, which run in parallel.
func matchOffline(t *testing.T, cases []simCase, outputs ...string) {
	t.Helper()
	reg := registry.InTree()
	quiet := &app{streams: streams{out: io.Discard, err: io.Discard}}
	type server struct {
		addr string
		d    *daemon.Daemon
	}
	servers := map[string]server{} // by the configuration's origin
	serverOf := make([]server, len(cases))
	for i, sc := range cases {
		c, err := manifest.LoadFiles(sc.cluster)
		if err != nil {
			t.Fatalf("%s: %v", sc.cluster, err)
		}
		cfg, what, err := quiet.loadConfig(sc.config, c, reg)
		if err != nil {
			t.Fatalf("%s: %v", sc.cluster, err)
		}
		if _, ok := servers[what]; !ok {
			var srv server
			srv.addr, srv.d = startBerthdWith(t, cfg)
			servers[what] = srv
		}
		serverOf[i] = servers[what]
	}
	for i, sc := range cases {
		srv := serverOf[i]
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel() // the berthds serve concurrently; each run has its own streams
			var flags []string
			if sc.config != "" {
				flags = []string{"--config", sc.config}
			}
			for _, output := range outputs {
				offline := berthctl(t, nil, "", append([]string{"simulate", "-f", sc.cluster, "-o", output}, flags...)...)
				remote := berthctl(t, nil, "", "--server", srv.addr, "simulate", "-f", sc.cluster, "-o", output)
				if offline.code != exitOK || remote.code != exitOK || offline.stdout == "" {
					t.Fatalf("-o %s: offline exit %d (stderr %q), --server exit %d (stderr %q)", output, offline.code, offline.stderr, remote.code, remote.stderr)
				}
				if diff := cmp.Diff(strings.Split(offline.stdout, "\n"), strings.Split(remote.stdout, "\n")); diff != "" {
					t.Errorf("-o %s (-offline +server):\n%s", output, diff)
				}
			}
			if pods := srv.d.Scheduler().View().Pods(); len(pods) != 0 {
				t.Errorf("berthd holds %d pods after simulating", len(pods))
			}
		})
	}
	t.Logf("%d clusters through %d berthds", len(cases), len(servers))
}

// TestSimulateServerOnTopOfHeld simulates on a berthd that holds nodes and
// a running pod: the trace is the offline one of berthd's objects with the
// files' objects upserted on top (a node of the same name replaces
// berthd's), and berthd holds what it held before.
func TestSimulateServerOnTopOfHeld(t *testing.T) {
	addr, d := startBerthd(t)
	dir := t.TempDir()
	const n1AndBig = `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {name: big, creationTimestamp: "2024-01-01T00:00:01Z"}
spec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: "3"}}}]}
status: {startTime: "2024-01-01T00:00:01Z"}
`
	held := filepath.Join(dir, "held.yaml")
	writeFile(t, held, n1AndBig+`---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "1", memory: 8Gi, pods: "10"}}
`)
	// n2 grows; a fits there, hi only by preempting big.
	const delta = `apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "10"}}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Pod
metadata: {name: a, creationTimestamp: "2024-01-01T00:00:02Z"}
spec: {containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: hi, creationTimestamp: "2024-01-01T00:00:03Z"}
spec: {priorityClassName: high, containers: [{name: c, resources: {requests: {cpu: "3"}}}]}
`
	pending := filepath.Join(dir, "pending.yaml")
	writeFile(t, pending, delta)
	union := filepath.Join(dir, "union.yaml")
	writeFile(t, union, n1AndBig+"---\n"+delta)

	if got := berthctl(t, nil, "", "--server", addr, "apply", "-f", held); got.code != exitOK {
		t.Fatalf("apply: %+v", got)
	}
	before := heldSummary(t, d)
	want := berthctl(t, nil, "", "simulate", "-f", union)
	got := berthctl(t, nil, "", "--server", addr, "simulate", "-f", pending)
	if want.code != exitOK || got.code != exitOK {
		t.Fatalf("offline %+v, --server %+v", want, got)
	}
	if !strings.Contains(want.stdout, `"result":"nominated","node":"n1","victims":["default/big"]`) {
		t.Fatalf("the offline trace lacks the preemption of big:\n%s", want.stdout)
	}
	if diff := cmp.Diff(strings.Split(want.stdout, "\n"), strings.Split(got.stdout, "\n")); diff != "" {
		t.Errorf("trace (-offline on the union +server on top of held):\n%s", diff)
	}
	if after := heldSummary(t, d); after != before {
		t.Errorf("berthd changed: before %s, after %s", before, after)
	}
}

// heldSummary is what berthd holds, in brief.
func heldSummary(t *testing.T, d *daemon.Daemon) string {
	t.Helper()
	nodes, err := d.Scheduler().View().Nodes()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, n := range nodes {
		fmt.Fprintf(&b, "node %s %v; ", n.Node.Name, n.Node.Allocatable)
	}
	for _, p := range d.Scheduler().View().Pods() {
		fmt.Fprintf(&b, "pod %s on %q; ", p.Key(), p.NodeName)
	}
	return b.String()
}

// TestSimulateServerConfig: berthd simulates with its own configuration,
// so --config is refused with --server and a KubeSchedulerConfiguration in
// the files is not sent, with a note. A berthd that cannot be reached
// exits 3, as every command talking to it.
func TestSimulateServerConfig(t *testing.T) {
	addr, _ := startBerthd(t)
	dir := filepath.Join("testdata", "simulate")
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := lis.Addr().String()
	lis.Close()
	if got := berthctl(t, nil, "", "--server", closed, "simulate", "-f", filepath.Join(dir, "resource-fit.yaml")); got.code != exitUnavailable || got.stdout != "" {
		t.Errorf("berthd unreachable: %+v", got)
	}
	got := berthctl(t, nil, "", "--server", addr, "simulate", "-f", filepath.Join(dir, "resource-fit.yaml"), "--config", filepath.Join(dir, "resource-fit.config.yaml"))
	if got.code != exitUsage || !strings.Contains(got.stderr, "--config cannot be used with --server") {
		t.Errorf("--config with --server: %+v", got)
	}
	cluster := filepath.Join(dir, "binpack-most-allocated.yaml")
	got = berthctl(t, nil, "", "--server", addr, "simulate", "-f", cluster)
	if want := "berthctl: not sent: " + cluster + ": document 2 (KubeSchedulerConfiguration): berthd simulates with its own --scheduler-config\n"; got.code != exitOK || got.stderr != want {
		t.Errorf("KubeSchedulerConfiguration with --server: exit %d, stderr %q, want %q", got.code, got.stderr, want)
	}
}
