package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCompletion runs cobra's hidden __complete command, as the shell
// scripts do, and reads the candidates it prints before its directive.
func TestCompletion(t *testing.T) {
	f := &fakeBerthd{}
	addr := f.start(t)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"get kinds", []string{"get", ""}, []string{"pods\tevery pod, bound ones too, with its state", "pending\tpods not bound yet", "nodes\tnodes and what their pods use",
			"nominations\tnominations in force", "queue\tpods in each queue state",
			"claims\tresource claims and their device allocations", "deviceclasses\tdevice classes", "resourceslices\tresource slices (devices per node)", "devicetaintrules\tdevice taint rules",
			"pv\tpersistent volumes", "pvc\tpersistent volume claims", "storageclasses\tstorage classes",
			"csinodes\tCSI drivers per node and their attach limits", "csidrivers\tCSI drivers", "csistoragecapacities\tCSI storage capacities",
			"resourceflavors\tKueue resource flavors", "clusterqueues\tKueue cluster queues, with usage against quota", "cohorts\tKueue cohorts",
			"localqueues\tKueue local queues", "workloadpriorityclasses\tKueue workload priority classes", "workloads\tKueue workloads and where they stand"}},
		{"get takes one kind", []string{"get", "nodes", ""}, nil},
		{"get pending --state", []string{"get", "pending", "--state", ""}, pendingStates},
		{"get pods --state", []string{"get", "pods", "--state", ""}, podStates},
		{"delete kinds", []string{"delete", ""}, []string{"pod", "node", "priorityclass", "pdb", "namespace", "devicetaintrule",
			"resourceflavor", "clusterqueue", "cohort", "localqueue", "workloadpriorityclass", "workload"}},
		{"delete node names, every page", []string{"--server", addr, "delete", "node", ""}, []string{"n1", "n2"}},
		{"delete pod names by prefix", []string{"--server", addr, "delete", "pod", "default/b"}, []string{"default/b"}},
		{"cordon node names", []string{"--server", addr, "cordon", ""}, []string{"n1", "n2"}},
		{"uncordon node names by prefix", []string{"--server", addr, "uncordon", "n2"}, []string{"n2"}},
		{"drain node names", []string{"--server", addr, "drain", ""}, []string{"n1", "n2"}},
		{"drain takes one node", []string{"--server", addr, "drain", "n1", ""}, nil},
		{"explain pod names, bound ones too", []string{"--server", addr, "explain", ""}, []string{"default/a", "default/b", "shop/web"}},
		{"evict completes bound pods", []string{"--server", addr, "evict", "shop/"}, []string{"shop/web"}},
		{"confirm completes binding pods only", []string{"--server", addr, "confirm", ""}, []string{"default/b"}},
		{"berthd unreachable: nothing, silently", []string{"--server", "127.0.0.1:1", "delete", "node", ""}, nil},
		{"a bad --server: nothing", []string{"--server", "nowhere", "explain", ""}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := berthctl(t, nil, "", append([]string{"__complete"}, tc.args...)...)
			lines := strings.Split(strings.TrimSuffix(got.stdout, "\n"), "\n")
			if got.code != exitOK || len(lines) == 0 || lines[len(lines)-1] != ":4" { // ShellCompDirectiveNoFileComp
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 0 and the directive :4 last", got.code, got.stdout, got.stderr)
			}
			if diff := cmp.Diff(tc.want, lines[:len(lines)-1], cmp.Comparer(func(a, b []string) bool {
				return len(a) == 0 && len(b) == 0 || cmp.Equal(a, b)
			})); diff != "" {
				t.Errorf("candidates (-want +got):\n%s", diff)
			}
			if strings.Contains(got.stderr, "berthctl:") {
				t.Errorf("completion printed an error: %q", got.stderr)
			}
		})
	}
}
