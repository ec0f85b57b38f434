package workload

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
)

// kubeoracle is the path of a built kubeoracle, or "" to skip the byte
// comparison with `kubeoracle gen`.
func kubeoracle(t *testing.T) string {
	t.Helper()
	path := os.Getenv("KUBEORACLE")
	if path == "" {
		path = "/tmp/kubeoracle"
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no kubeoracle at %s (set KUBEORACLE): %v", path, err)
	}
	return path
}

func TestYAMLIsKubeoracles(t *testing.T) {
	bin := kubeoracle(t)
	tests := []struct {
		name string
		spec Spec
	}{
		{"basic", Spec{Nodes: 12, Pods: 15}},
		{"basic", Spec{Nodes: 3, Pods: 2, Existing: 5}},
		{"spread", Spec{Nodes: 11, Pods: 7}},
		{"affinity", Spec{Nodes: 4, Pods: 12}},
		{"preemption", Spec{Nodes: 3, Pods: 4}},
		{"preemption", Spec{Nodes: 3, Pods: 2, Existing: 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name+"/"+strconv.Itoa(tc.spec.Nodes), func(t *testing.T) {
			want, err := exec.Command(bin, "gen", "--workload", tc.name, "--nodes", strconv.Itoa(tc.spec.Nodes),
				"--pods", strconv.Itoa(tc.spec.Pods), "--existing-pods", strconv.Itoa(tc.spec.Existing)).Output()
			if err != nil {
				t.Fatalf("kubeoracle gen: %v", err)
			}
			w, err := Generate(tc.name, tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := w.WriteYAML(&got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got.String()); diff != "" {
				t.Errorf("YAML differs from kubeoracle gen (-kubeoracle +ours):\n%s", diff)
			}
		})
	}
}

// TestYAMLDecodesToModel checks that the manifests describe exactly the
// model objects: what berthctl simulate reads from the file is what the
// drivers send.
func TestYAMLDecodesToModel(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			w, err := Generate(name, Spec{Nodes: 23, Pods: 40})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := w.WriteYAML(&buf); err != nil {
				t.Fatal(err)
			}
			c, err := manifest.Decode(name+".yaml", buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Warnings) > 0 { // an outdated spelling (1.36's v1alpha2 PodGroup)
				t.Errorf("warnings: %+v", c.Warnings)
			}
			if diff := cmp.Diff(w.Nodes, c.Nodes, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("nodes (-generated +decoded):\n%s", diff)
			}
			pods := append(append([]*model.Pod{}, w.Existing...), w.Pending...)
			// Runtime (images, QoS, phase) is the status the manifest reads for
			// descheduling; the generator leaves it to the decoder.
			if diff := cmp.Diff(pods, c.Pods, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(model.Pod{}, "Runtime")); diff != "" {
				t.Errorf("pods (-generated +decoded):\n%s", diff)
			}
			if diff := cmp.Diff(w.PriorityClasses, c.PriorityClasses, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("priority classes (-generated +decoded):\n%s", diff)
			}
			if w.Devices != nil {
				var got Devices
				got.Classes, _ = c.Devices.List()
				got.Slices = c.Devices.SliceList()
				for _, tm := range w.Devices.Templates {
					got.Templates = append(got.Templates, c.Devices.Templates[tm.Namespace+"/"+tm.Name])
				}
				if diff := cmp.Diff(w.Devices, &got, cmpopts.EquateEmpty(), cmpopts.IgnoreTypes(metav1.TypeMeta{})); diff != "" {
					t.Errorf("DRA objects (-generated +decoded):\n%s", diff)
				}
			}
			if st := w.Storage; st != nil {
				v := c.Volumes
				got := []int{len(v.Classes), len(v.Drivers), len(v.CSINodes), len(v.Capacities), len(v.Volumes), len(v.Claims)}
				want := []int{len(st.Classes), len(st.Drivers), len(st.CSINodes), len(st.Capacities), len(st.Volumes), len(st.Claims)}
				if diff := cmp.Diff(want, got); diff != "" || len(st.Claims) != 20 {
					t.Errorf("storage objects by kind (-generated +decoded):\n%s; %d claims, want 20", diff, len(st.Claims))
				}
			}
		})
	}
}

func TestGenerate(t *testing.T) {
	type counts struct {
		Nodes, Classes, Existing, Pending, NeverFit int
		Ops                                         map[string]int
	}
	tests := []struct {
		name string
		spec Spec
		want counts
	}{
		{"basic", Spec{Nodes: 5, Pods: 10}, counts{Nodes: 5, Pending: 10, Ops: map[string]int{"AddPod": 10}}},
		{"preemption", Spec{Nodes: 5, Pods: 3}, counts{Nodes: 5, Classes: 2, Existing: 40, Pending: 3, Ops: map[string]int{"AddPod": 3}}},
		{"unschedulable", Spec{Nodes: 5, Pods: 30}, counts{Nodes: 5, Pending: 30, NeverFit: 3, Ops: map[string]int{"AddPod": 30}}},
		{"dra", Spec{Nodes: 5, Pods: 8}, counts{Nodes: 5, Pending: 8, Ops: map[string]int{"AddPod": 8}}},
		{"mixedchurn", Spec{Nodes: 20, Pods: 40}, counts{Nodes: 22, Existing: 22, Pending: 40,
			Ops: map[string]int{"AddPod": 40, "AddNode": 4, "DeletePod": 6, "DeleteNode": 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := Generate(tc.name, tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			got := counts{Nodes: len(w.Nodes), Classes: len(w.PriorityClasses), Existing: len(w.Existing),
				Pending: len(w.Pending), NeverFit: w.NeverFit, Ops: map[string]int{}}
			for _, e := range w.Stream {
				got.Ops[e.Op.String()]++
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGenerateErrors(t *testing.T) {
	if _, err := Generate("nope", Spec{Nodes: 1}); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown workload: got %v, want ErrUnknown", err)
	}
	if _, err := Generate(Basic, Spec{}); err == nil {
		t.Error("zero nodes: got nil error")
	}
}

// TestCompareCoversEveryWorkload keeps bench/compare.py's default list of
// workloads equal to Names(), so a new workload is compared with kube.
func TestCompareCoversEveryWorkload(t *testing.T) {
	src, err := os.ReadFile("../compare.py")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^WORKLOADS = \[(.*)\]$`).FindSubmatch(src)
	if m == nil {
		t.Fatal("compare.py has no WORKLOADS = [...] line")
	}
	var got []string
	for f := range strings.SplitSeq(string(m[1]), ",") {
		got = append(got, strings.Trim(strings.TrimSpace(f), `"`))
	}
	if diff := cmp.Diff(Names(), got); diff != "" {
		t.Errorf("compare.py's WORKLOADS (-Names() +compare.py):\n%s", diff)
	}
}
