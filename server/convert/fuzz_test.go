package convert_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/convert"
)

// objectFields are the first segments of a *FieldError path from
// ObjectFromProto: the Object's oneof fields, read from its descriptor so
// that a kind added to the proto is covered (the storage kinds were not).
func objectFields() []string {
	var out []string
	fields := (&berthv1.Object{}).ProtoReflect().Descriptor().Oneofs().ByName("kind").Fields()
	for i := range fields.Len() {
		out = append(out, string(fields.Get(i).Name()))
	}
	return out
}

// checkFieldError fails unless err is a *FieldError with a reason and,
// when it has a path, one starting with one of roots.
func checkFieldError(t *testing.T, err error, roots ...string) *convert.FieldError {
	t.Helper()
	var fe *convert.FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a *convert.FieldError", err, err)
	}
	if fe.Reason == "" {
		t.Fatalf("error at %q has no reason", fe.Path)
	}
	if fe.Path == "" {
		return fe
	}
	for _, r := range roots {
		if fe.Path == r || strings.HasPrefix(fe.Path, r+".") || strings.HasPrefix(fe.Path, r+"[") {
			return fe
		}
	}
	t.Fatalf("error path %q does not start at one of %v", fe.Path, roots)
	return nil
}

// FuzzObjectFromProto feeds wire-decoded Objects (what Apply and Sync
// receive) to the conversion. A refused object gets a *FieldError naming a
// field of the Object; an accepted one converts back to a wire object that
// converts to the same model object, marshals, and has the ref
// ObjectRefOf reads; the held-pod shortcut (ObjectFromProtoHeld) gives
// exactly what the full conversion gives; the input is never modified.
func FuzzObjectFromProto(f *testing.F) {
	seeds := fullObjects()
	for name, o := range fullQueueObjects() {
		seeds["queueing "+name] = o
	}
	for _, o := range seeds {
		b, err := proto.Marshal(o)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	held, err := convert.PodFromProto(fullPod())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := new(berthv1.Object)
		if proto.Unmarshal(data, in) != nil {
			return // gRPC refuses it before the service sees it
		}
		before := proto.Clone(in)
		got, err := convert.ObjectFromProto(in)
		heldGot, heldErr := convert.ObjectFromProtoHeld(in, held)
		if !proto.Equal(in, before) {
			t.Fatalf("conversion modified its input:\nbefore %v\nafter  %v", before, in)
		}
		if diff := cmp.Diff(errString(err), errString(heldErr)); diff != "" {
			t.Fatalf("ObjectFromProtoHeld's error differs from ObjectFromProto's (-full +held):\n%s", diff)
		}
		if err != nil {
			checkFieldError(t, err, objectFields()...)
			return
		}
		if diff := cmp.Diff(got, heldGot, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("ObjectFromProtoHeld differs from ObjectFromProto (-full +held):\n%s", diff)
		}
		if ref, want := got.Ref().Proto(), convert.ObjectRefOf(in); !proto.Equal(ref, want) {
			t.Fatalf("Ref() = %v, ObjectRefOf = %v", ref, want)
		}
		out := convert.ObjectToProto(got)
		if _, err := proto.Marshal(out); err != nil {
			t.Fatalf("an accepted object does not marshal: %v", err)
		}
		back, err := convert.ObjectFromProto(out)
		if err != nil {
			t.Fatalf("ObjectToProto of an accepted object is refused: %v\nin  %v\nout %v", err, in, out)
		}
		if diff := cmp.Diff(got, back, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("model -> proto -> model changed the object (-first +second):\n%s", diff)
		}
		if again := convert.ObjectToProto(back); !proto.Equal(out, again) {
			t.Fatalf("the wire form is not stable:\nfirst  %v\nsecond %v", out, again)
		}
	})
}

// FuzzPodStrings sets the strings of a minimal pod that callers choose
// freely (identity, a label, a resource, a selector, a toleration, the
// node) to fuzzed values, as they arrive over the wire. A refused pod
// names one of those fields; an accepted one round-trips.
func FuzzPodStrings(f *testing.F) {
	f.Add("uid-1", "default", "web-0", "app", "web", "cpu", int64(500), "disk", "ssd", "dedicated", "n1", "default-scheduler")
	f.Add("u", "prod", "p", "example.com/tier", "front", "example.com/gpu", int64(1), "kubernetes.io/hostname", "n1", "", "", "")
	f.Add("", "a.b", "Web_0", "bad key", strings.Repeat("x", 64), "gpu", int64(-1), "", "", "", "n 1", "")
	f.Add("uid", "ns", "name", "k8s.io/", "-v", "hugepages-2Mi", int64(1<<40), "a/b/c", "", "key", "", "x")
	f.Fuzz(func(t *testing.T, uid, ns, name, labelKey, labelValue, resource string, amount int64,
		selKey, selValue, tolKey, node, scheduler string) {
		in := &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: &berthv1.Pod{
			Uid: uid, Namespace: ns, Name: name,
			Labels:        map[string]string{labelKey: labelValue},
			SchedulerName: scheduler,
			Containers:    []*berthv1.Container{{Name: "c", Requests: map[string]int64{resource: amount}}},
			NodeSelector:  map[string]string{selKey: selValue},
			Tolerations:   []*berthv1.Toleration{{Key: tolKey, Operator: berthv1.TolerationOperator_TOLERATION_OPERATOR_EXISTS}},
			NodeName:      node,
		}}}
		wire, err := proto.Marshal(in)
		if err != nil {
			return // not valid UTF-8: gRPC refuses it before the service sees it
		}
		in = new(berthv1.Object)
		if err := proto.Unmarshal(wire, in); err != nil {
			t.Fatal(err)
		}
		got, err := convert.ObjectFromProto(in)
		if err != nil {
			fe := checkFieldError(t, err, "pod.uid", "pod.namespace", "pod.name", "pod.labels", "pod.scheduler_name",
				"pod.containers[0].requests", "pod.node_selector", "pod.tolerations[0]", "pod.node_name")
			if fe.Path == "" {
				t.Fatalf("a pod refused without a path: %v", fe)
			}
			return
		}
		back, err := convert.ObjectFromProto(convert.ObjectToProto(got))
		if err != nil {
			t.Fatalf("ObjectToProto of an accepted pod is refused: %v", err)
		}
		if diff := cmp.Diff(got, back, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("model -> proto -> model changed the pod (-first +second):\n%s", diff)
		}
	})
}

// FuzzRefFromProto checks reference validation (Delete, Sync deletes): a
// refused reference names one of its fields; an accepted one gives back
// the same wire reference.
func FuzzRefFromProto(f *testing.F) {
	f.Add(int32(berthv1.ObjectKind_OBJECT_KIND_POD), "ns", "p", "u")
	f.Add(int32(berthv1.ObjectKind_OBJECT_KIND_NODE), "", "n1", "")
	f.Add(int32(berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET), "ns", "b", "u")
	f.Add(int32(42), "", "", "")
	f.Fuzz(func(t *testing.T, kind int32, ns, name, uid string) {
		in := &berthv1.ObjectRef{Kind: berthv1.ObjectKind(kind), Namespace: ns, Name: name, Uid: uid}
		if _, err := proto.Marshal(in); err != nil {
			return // not valid UTF-8: never arrives
		}
		ref, err := convert.RefFromProto(in)
		if err != nil {
			checkFieldError(t, err, "kind", "namespace", "name", "uid")
			return
		}
		if got := ref.Proto(); !proto.Equal(got, in) {
			t.Fatalf("RefFromProto(%v).Proto() = %v", in, got)
		}
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
