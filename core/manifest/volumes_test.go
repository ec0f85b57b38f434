package manifest

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/model"
)

const storageManifest = `
apiVersion: v1
kind: List
items:
- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata: {name: local}
  provisioner: kubernetes.io/no-provisioner
  volumeBindingMode: WaitForFirstConsumer
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: pv-1, labels: {topology.kubernetes.io/zone: a}}
  spec:
    capacity: {storage: 10Gi}
    accessModes: [ReadWriteOncePod]
    storageClassName: local
    local: {path: /mnt/1}
    nodeAffinity:
      required:
        nodeSelectorTerms:
        - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [n1]}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local
  resources: {requests: {storage: 1Gi}}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: n1}
spec:
  drivers: [{name: disk.csi.example.com, nodeID: i-1, allocatable: {count: 2}}]
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: disk.csi.example.com}
spec: {attachRequired: true}
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: cap-a, namespace: kube-system}
storageClassName: local
capacity: 100Gi
---
apiVersion: v1
kind: Pod
metadata: {name: db}
spec:
  containers: [{name: db, image: pg}]
  volumes:
  - {name: data, persistentVolumeClaim: {claimName: data, readOnly: true}}
  - name: scratch
    ephemeral:
      volumeClaimTemplate:
        metadata: {labels: {app: db}}
        spec:
          accessModes: [ReadWriteOnce]
          storageClassName: local
          resources: {requests: {storage: 2Gi}}
  - {name: secrets, csi: {driver: secrets.csi.example.com}}
  - {name: tmp, emptyDir: {}}
`

func TestDecodeStorage(t *testing.T) {
	c, err := Decode("storage.yaml", []byte(storageManifest))
	if err != nil {
		t.Fatal(err)
	}
	v := c.Volumes
	for _, tc := range []struct {
		kind string
		n    int
	}{{"volumes", len(v.Volumes)}, {"claims", len(v.Claims)}, {"classes", len(v.Classes)}, {"csinodes", len(v.CSINodes)}, {"drivers", len(v.Drivers)}, {"capacities", len(v.Capacities)}} {
		if tc.n != 1 {
			t.Errorf("%d %s, want 1", tc.n, tc.kind)
		}
	}
	if _, ok := v.Claims["default/data"]; !ok {
		t.Errorf("claims = %v, want default/data (namespace defaulted)", v.Claims)
	}
	if _, ok := v.Capacities["kube-system/cap-a"]; !ok {
		t.Errorf("capacities = %v, want kube-system/cap-a", v.Capacities)
	}
	class := "local"
	want := []model.PodVolume{
		{Name: "data", ClaimName: "data", ReadOnly: true},
		{Name: "scratch", ClaimName: "db-scratch", Ephemeral: &model.ClaimTemplate{
			Labels: map[string]string{"app": "db"}, RequestBytes: 2 << 30, AccessModes: []string{"ReadWriteOnce"}, StorageClassName: &class,
		}},
		{Name: "secrets", CSIDriver: "secrets.csi.example.com"},
		{Name: "tmp", Other: "emptyDir"},
	}
	if diff := cmp.Diff(want, c.Pods[0].Volumes); diff != "" {
		t.Errorf("pod volumes (-want +got):\n%s", diff)
	}
}

func TestDecodeStorageErrors(t *testing.T) {
	for _, tc := range []struct {
		name, doc, wantField, wantMsg string
	}{
		{name: "pv without access modes", doc: "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv}\nspec: {capacity: {storage: 1Gi}}\n",
			wantField: "spec.accessModes", wantMsg: "at least 1 access mode"},
		{name: "claim without request", doc: "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\nspec: {accessModes: [ReadWriteOnce]}\n",
			wantField: "spec.resources.requests[storage]", wantMsg: "Required value"},
		{name: "class bad mode", doc: "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: s}\nprovisioner: p.example.com\nvolumeBindingMode: Soon\n",
			wantField: "volumeBindingMode", wantMsg: "Unsupported value"},
		{name: "duplicate claims", doc: "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n---\n" +
			"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c, namespace: default}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n",
			wantField: "metadata.name", wantMsg: "duplicate"},
		{name: "pod ephemeral without template", doc: "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: i}]\n  volumes: [{name: e, ephemeral: {}}]\n",
			wantField: "spec.volumes[0].ephemeral.volumeClaimTemplate", wantMsg: "required"},
		{name: "pod duplicate volume", doc: "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: i}]\n  volumes: [{name: e, emptyDir: {}}, {name: e, emptyDir: {}}]\n",
			wantField: "spec.volumes[1].name", wantMsg: "duplicate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("x.yaml", []byte(tc.doc))
			var me *Error
			if !errors.As(err, &me) {
				t.Fatalf("Decode = %v, want a *manifest.Error", err)
			}
			if me.Field != tc.wantField || !strings.Contains(me.Err.Error(), tc.wantMsg) {
				t.Errorf("got %s: %v, want %s: ...%s...", me.Field, me.Err, tc.wantField, tc.wantMsg)
			}
		})
	}
}
