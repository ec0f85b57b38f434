package convert_test

import (
	"errors"
	"strings"
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/convert"
)

// Lengths are checked where Kubernetes checks them, and where Berth would
// fail later (a uid too long to be a store key could never be bound). A
// value refused is clipped in the message, whatever its size.
func TestLengths(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	huge := long(5 << 20)
	podRef := func(uid string) error {
		_, _, _, err := convert.PodRefFromProto(&berthv1.PodRef{Namespace: "ns", Name: "p", Uid: uid}, true)
		return err
	}
	objectRef := func(uid string) error {
		_, err := convert.RefFromProto(&berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: "ns", Name: "p", Uid: uid})
		return err
	}
	object := func(o *berthv1.Object) func() error {
		return func() error { _, err := convert.ObjectFromProto(o); return err }
	}
	classWithDescription := func(d string) *berthv1.Object {
		return &berthv1.Object{Kind: &berthv1.Object_PriorityClass{PriorityClass: &berthv1.PriorityClass{Name: "c", Value: 1, Description: d}}}
	}
	tests := []struct {
		name     string
		check    func() error
		wantPath string // empty: valid
		wantMsg  string // a substring of the reason
	}{
		{name: "pod uid at the limit", check: object(podObject(func(p *berthv1.Pod) { p.Uid = long(convert.MaxUIDLength) }))},
		{name: "pod uid over the limit", check: object(podObject(func(p *berthv1.Pod) { p.Uid = long(4097) })),
			wantPath: "pod.uid", wantMsg: "at most 256 bytes, got 4097"},
		{name: "object ref uid over the limit", check: func() error { return objectRef(long(convert.MaxUIDLength + 1)) },
			wantPath: "uid", wantMsg: "at most 256 bytes"},
		{name: "pod ref uid over the limit", check: func() error { return podRef(huge) }, wantPath: "uid", wantMsg: "at most 256 bytes"},
		{name: "description at the limit", check: object(classWithDescription(long(convert.MaxDescriptionLength)))},
		{name: "description over the limit", check: object(classWithDescription(huge)),
			wantPath: "priority_class.description", wantMsg: "at most 4096 bytes, got 5242880"},
		{name: "huge label value", check: object(podObject(func(p *berthv1.Pod) { p.Labels["app"] = huge })),
			wantPath: "pod.labels[app]", wantMsg: `"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"... (5242880 bytes)`},
		{name: "huge label key", check: object(nodeObject(func(n *berthv1.Node) { n.Labels[huge] = "v" })),
			wantPath: "node.labels[xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (5242880 bytes)]", wantMsg: "invalid value"},
		{name: "huge taint key", check: object(nodeObject(func(n *berthv1.Node) { n.Taints[0].Key = huge })),
			wantPath: "node.taints[0].key", wantMsg: "(5242880 bytes)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.check()
			if tc.wantPath == "" {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			var fe *convert.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error %.300v, want a *FieldError", err)
			}
			if fe.Path != tc.wantPath || !strings.Contains(fe.Reason, tc.wantMsg) {
				t.Errorf("error at %.300q: %.300q; want at %q, with %q", fe.Path, fe.Reason, tc.wantPath, tc.wantMsg)
			}
			if n := len(fe.Error()); n > 1024 {
				t.Errorf("message of %d bytes, want at most 1024", n)
			}
		})
	}
}
