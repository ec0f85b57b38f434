package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestStatsPushAgainstBerthd: the corpus scenario mem-over-request (recorded
// from the real kubelet) applied and its Summary pushed: berthd evicts the
// pod the kubelet evicted, with its grace period and message.
func TestStatsPushAgainstBerthd(t *testing.T) {
	addr, _ := startBerthd(t)
	const corpus = "../../core/pressure/testdata/oracle/"
	run := func(stdin string, args ...string) result {
		t.Helper()
		return berthctl(t, nil, stdin, append([]string{"--server", addr}, args...)...)
	}
	if got := run("", "apply", "-f", corpus+"mem-over-request.yaml"); got.code != exitOK {
		t.Fatalf("apply: %+v", got)
	}
	got := run("", "stats", "push", "-f", corpus+"mem-over-request.stats0.json")
	want := corpus + "mem-over-request.stats0.json: node n1: MemoryPressure (memory.available<100Mi)\n" +
		"  evicted default/web-a (grace 1s): The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. Container web was using 2Gi, request is 1Gi, has larger consumption of memory.\n"
	if got.code != exitOK || got.stdout != want {
		t.Fatalf("stats push: %+v\nwant stdout %q", got, want)
	}

	bad := filepath.Join(t.TempDir(), "bad.json")
	writeFile(t, bad, `{"node":{"nodeName":"n1","memry":{}}}`)
	if got := run("", "stats", "push", "-f", bad); got.code != exitFailed || !strings.Contains(got.stderr, `unknown field "memry"`) {
		t.Errorf("malformed Summary: %+v, want exit 1 naming the field", got)
	}
	if got := run(`{"node":{"nodeName":"n9"}}`, "stats", "push", "-f", "-"); got.code != exitNotFound || !strings.Contains(got.stderr, "node n9") {
		t.Errorf("unknown node: %+v, want exit 4 naming it", got)
	}
	if got := run("", "stats", "push"); got.code != exitUsage {
		t.Errorf("no -f: %+v, want exit 2", got)
	}
}
