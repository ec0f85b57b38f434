package manifest_test

import (
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/server/convert"
)

// FuzzDecode reads any bytes as manifests, as berthctl simulate and apply
// do. A refusal is a *manifest.Error locating the document in the file;
// decoding is deterministic; and every object read converts to a wire
// object the server accepts (what berthctl apply sends), unchanged by the
// round trip.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"testdata/workloads.yaml", "testdata/controllers.yaml"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {zone: a}}\nstatus: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n"))
	f.Add([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  priority: 5\n  containers: [{name: c, resources: {requests: {cpu: 100m}}}]\n"))
	f.Add([]byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [{schedulerName: a}]\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Namespace, metadata: {name: x}}\n"))
	f.Add([]byte("kind: Pod\n---\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := manifest.Decode("fuzz.yaml", data)
		if err != nil {
			var me *manifest.Error
			if !errors.As(err, &me) || me.File != "fuzz.yaml" || me.Err == nil {
				t.Fatalf("error %v (%T) is not a *manifest.Error about fuzz.yaml", err, err)
			}
			return
		}
		again, err := manifest.Decode("fuzz.yaml", data)
		if err != nil {
			t.Fatalf("a second decode failed: %v", err)
		}
		if diff := cmp.Diff(c, again, cmpopts.IgnoreFields(manifest.Cluster{}, "Origins"), cmpopts.IgnoreUnexported(dra.Objects{}), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("decoding is not deterministic (-first +second):\n%s", diff)
		}
		for _, o := range objects(c) {
			back, err := convert.ObjectFromProto(convert.ObjectToProto(o))
			if err != nil {
				t.Fatalf("%s %s read from a manifest is refused by the server: %v", o.Kind(), o.Ref().Key(), err)
			}
			if diff := cmp.Diff(o, back, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("%s %s changed through the wire (-read +sent):\n%s", o.Kind(), o.Ref().Key(), diff)
			}
		}
	})
}

func objects(c *manifest.Cluster) []convert.Object {
	var out []convert.Object
	for _, n := range c.Nodes {
		out = append(out, convert.Object{Node: n})
	}
	for _, p := range c.Pods {
		out = append(out, convert.Object{Pod: p})
	}
	for _, pc := range c.PriorityClasses {
		out = append(out, convert.Object{PriorityClass: pc})
	}
	for _, b := range c.PDBs {
		out = append(out, convert.Object{PDB: b})
	}
	for _, ns := range c.Namespaces {
		out = append(out, convert.Object{Namespace: ns})
	}
	return out
}
