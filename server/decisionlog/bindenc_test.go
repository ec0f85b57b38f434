package decisionlog

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/server/podbook"
)

// TestBindPayload checks that newBindRecord writes the bytes a
// deterministic marshal of the Bind decision gives.
func TestBindPayload(t *testing.T) {
	long := strings.Repeat("x", 300) // lengths of two varint bytes
	tests := []struct {
		pod  *model.Pod
		node string
	}{
		{&model.Pod{UID: "uid-1", Namespace: "ns", Name: "p1"}, "node-1"},
		{&model.Pod{UID: "uid-2", Namespace: "ns", Name: "p2", SchedulerName: "other"}, "node-2"},
		{&model.Pod{UID: "u"}, ""},
		{&model.Pod{UID: long, Namespace: long, Name: long, SchedulerName: long}, long},
		{&model.Pod{UID: "ü", Namespace: "名前", Name: "p"}, "nœud"},
	}
	for _, tt := range tests {
		want, err := encode(bindDecision(tt.pod, tt.node))
		if err != nil {
			t.Fatal(err)
		}
		rec, ok := newBindRecord(tt.pod, tt.node, 42)
		if !ok {
			t.Fatalf("newBindRecord(%q) refused", tt.pod.UID)
		}
		if !bytes.Equal(rec.payload, want) {
			t.Errorf("payload of %q = %x, want %x", tt.pod.UID, rec.payload, want)
		}
		if !bytes.Equal(rec.assumed, podbook.BindValue(42, want)) {
			t.Errorf("assumed value of %q = %x, want %x", tt.pod.UID, rec.assumed, podbook.BindValue(42, want))
		}
		if string(rec.key) != tt.pod.UID {
			t.Errorf("key = %q, want %q", rec.key, tt.pod.UID)
		}
		if d, err := podbook.ParseBind(rec.assumed); err != nil || binary.BigEndian.Uint64(rec.assumed) != 42 || d.GetBind().GetNode() != tt.node {
			t.Errorf("podbook.ParseBind = %v, %v (hint %d)", d, err, binary.BigEndian.Uint64(rec.assumed))
		}
		// The hint is patched in place later: it must not touch the rest.
		binary.BigEndian.PutUint64(rec.assumed, 7)
		if !bytes.Equal(rec.payload, want) || string(rec.key) != tt.pod.UID {
			t.Errorf("patching the hint of %q changed the payload or key", tt.pod.UID)
		}
	}
	if _, ok := newBindRecord(&model.Pod{UID: "u", Name: "\xff"}, "n", 0); ok {
		t.Error("newBindRecord accepted invalid UTF-8, which encode refuses")
	}
	if _, err := encode(bindDecision(&model.Pod{UID: "u", Name: "\xff"}, "n")); err == nil {
		t.Error("encode accepted invalid UTF-8: the fallback would not report it")
	}
}
