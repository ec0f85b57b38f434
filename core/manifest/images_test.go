package manifest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/model"
)

// A node's status.images and a container's image are read as kube writes
// them; what no kubelet reports is refused with the field named.
func TestImagesImported(t *testing.T) {
	c, err := Decode("cluster.yaml", []byte(`apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  images:
  - names: [docker.io/library/nginx@sha256:0123, docker.io/library/nginx:1.27]
    sizeBytes: 72000000
  - names: [registry.k8s.io/pause:3.10]
    sizeBytes: 320368
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  initContainers: [{name: init, image: busybox}]
  containers: [{name: app, image: nginx:1.27}, {name: side}]
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []model.ContainerImage{
		{Names: []string{"docker.io/library/nginx@sha256:0123", "docker.io/library/nginx:1.27"}, SizeBytes: 72000000},
		{Names: []string{"registry.k8s.io/pause:3.10"}, SizeBytes: 320368},
	}
	if diff := cmp.Diff(want, c.Nodes[0].Images); diff != "" {
		t.Errorf("images (-want +got):\n%s", diff)
	}
	pod := c.Pods[0]
	if got := []string{pod.InitContainers[0].Image, pod.Containers[0].Image, pod.Containers[1].Image}; !cmp.Equal(got, []string{"busybox", "nginx:1.27", ""}) {
		t.Errorf("container images %q", got)
	}

	for _, tc := range []struct{ name, doc, want string }{
		{"no names", "kind: Node\napiVersion: v1\nmetadata: {name: n1}\nstatus: {images: [{sizeBytes: 1}]}\n", "status.images[0].names: required"},
		{"empty name", "kind: Node\napiVersion: v1\nmetadata: {name: n1}\nstatus: {images: [{names: [a, '']}]}\n", "status.images[0].names[1]: required"},
		{"negative size", "kind: Node\napiVersion: v1\nmetadata: {name: n1}\nstatus: {images: [{names: [a], sizeBytes: -1}]}\n", "status.images[0].sizeBytes: must be at least 0"},
		{"padded image", "kind: Pod\napiVersion: v1\nmetadata: {name: p}\nspec: {containers: [{name: c, image: 'nginx '}]}\n", "spec.containers[0].image: invalid value \"nginx \": must not have leading or trailing whitespace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("bad.yaml", []byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
