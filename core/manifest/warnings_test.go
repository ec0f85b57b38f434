package manifest_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/manifest"
)

// TestWarnings: 1.36's scheduling.k8s.io/v1alpha2 PodGroup and Workload
// are still read, each with a warning naming its document, its object and
// 1.37's scheduling.k8s.io/v1beta1; the current spellings warn of nothing.
func TestWarnings(t *testing.T) {
	const (
		podGroupMsg = "scheduling.k8s.io/v1alpha2 PodGroup is Kubernetes 1.36's spelling, removed in 1.37: write scheduling.k8s.io/v1beta1 " +
			"(spec.workloadRef {workloadName, templateName} instead of spec.podGroupTemplateRef.workload, " +
			"spec.disruptionMode {single: {}} | {all: {}} instead of Pod | PodGroup)"
		workloadMsg = "scheduling.k8s.io/v1alpha2 Workload is Kubernetes 1.36's spelling, removed in 1.37: write scheduling.k8s.io/v1beta1 " +
			"(a template's disruptionMode {single: {}} | {all: {}} instead of Pod | PodGroup)"
	)
	at := func(doc int) manifest.Location { return manifest.Location{File: "in.yaml", Document: doc} }
	for _, tc := range []struct {
		name string
		doc  string
		want []manifest.Warning
	}{
		{
			name: "v1alpha2 PodGroup",
			doc:  "apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {name: g, namespace: ml}\nspec: {schedulingPolicy: {gang: {minCount: 2}}}\n",
			want: []manifest.Warning{{Location: at(1), Object: "PodGroup ml/g", Message: podGroupMsg}},
		},
		{
			name: "v1alpha2 Workload and its PodGroup",
			doc: "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n" +
				"apiVersion: scheduling.k8s.io/v1alpha2\nkind: Workload\nmetadata: {name: w}\nspec: {podGroupTemplates: [{name: t, schedulingPolicy: {gang: {minCount: 2}}}]}\n---\n" +
				"apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {name: g}\nspec: {podGroupTemplateRef: {workload: {workloadName: w, podGroupTemplateName: t}}}\n",
			want: []manifest.Warning{
				{Location: at(2), Object: "Workload default/w", Message: workloadMsg},
				{Location: at(3), Object: "PodGroup default/g", Message: podGroupMsg},
			},
		},
		{
			name: "v1alpha2 PodGroup in a List",
			doc:  "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: scheduling.k8s.io/v1alpha2, kind: PodGroup, metadata: {name: g}, spec: {schedulingPolicy: {basic: {}}}}\n",
			want: []manifest.Warning{{Location: at(1), Object: "items[0] PodGroup default/g", Message: podGroupMsg}},
		},
		{
			name: "v1beta1",
			doc: "apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w}\nspec: {podGroupTemplates: [{name: t, schedulingPolicy: {gang: {minCount: 2}}}]}\n---\n" +
				"apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec: {workloadRef: {workloadName: w, templateName: t}}\n",
		},
		{
			name: "v1alpha3",
			doc:  "apiVersion: scheduling.k8s.io/v1alpha3\nkind: PodGroup\nmetadata: {name: g}\nspec: {schedulingPolicy: {gang: {minCount: 2}}}\n",
		},
		{
			name: "scheduler-plugins",
			doc:  "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g}\nspec: {minMember: 2}\n",
		},
		{
			name: "PriorityClass",
			doc:  "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: urgent}\nvalue: 1000\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := manifest.Decode("in.yaml", []byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, c.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWarningString: a warning reads like an ignored document, located.
func TestWarningString(t *testing.T) {
	w := manifest.Warning{Location: manifest.Location{File: "a.yaml", Document: 3}, Object: "PodGroup ml/g", Message: "outdated"}
	if got, want := w.String(), "a.yaml: document 3 (PodGroup ml/g): outdated"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
