package decisionlog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/server/podbook"
	"github.com/berthsched/berth/store"
)

// seedPayloads are the payloads of real decisions of every type.
func seedPayloads(f *testing.F) [][]byte {
	pod := &model.Pod{UID: "uid-1", Namespace: "default", Name: "web-0", SchedulerName: "batch"}
	other := &model.Pod{UID: "uid-2", Namespace: "default", Name: "db-0"}
	var out [][]byte
	for _, d := range []*berthv1.Decision{
		bindDecision(pod, "n1"),
		evictDecision(&framework.Eviction{Victim: other, Node: "n1", Cause: framework.EvictPreemption, Preemptor: pod, Message: "preempted by default/web-0"}),
		nominateDecision(pod, "n2"),
		clearNominationDecision(pod, "bound elsewhere"),
		unschedulableDecision(pod, "0/3 nodes are available: 3 Insufficient cpu.", nil, 10),
	} {
		b, err := encode(d)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// FuzzDecisionRecord decodes any bytes as a decision record, as Watch and
// the restart's replay read the log. A record that decodes re-encodes
// deterministically to a payload that decodes to the same decision, and
// carries the record's revision and time; one that does not is refused
// with ErrCorrupt naming the revision. A book bind value decodes only
// to a Bind, after its revision hint.
func FuzzDecisionRecord(f *testing.F) {
	for _, p := range seedPayloads(f) {
		f.Add(p, uint64(7))
		f.Add(podbook.BindValue(7, p), uint64(8))
	}
	f.Add([]byte{0xff, 0xff}, uint64(1))
	at := time.Unix(1_700_000_000, 5).UTC()
	f.Fuzz(func(t *testing.T, payload []byte, rev uint64) {
		d, err := Decode(store.Record{Revision: rev, Time: at, Payload: payload})
		if err != nil {
			if !errors.Is(err, store.ErrCorrupt) {
				t.Fatalf("decode error %v is not ErrCorrupt", err)
			}
			return
		}
		if d.GetRevision() != rev || !d.GetTime().AsTime().Equal(at) {
			t.Fatalf("decoded revision %d time %v, want %d %v", d.GetRevision(), d.GetTime().AsTime(), rev, at)
		}
		d.Revision, d.Time = 0, nil
		again, err := encode(d)
		if err != nil {
			t.Fatalf("a decoded decision does not re-encode: %v", err)
		}
		back, err := decodePayload(again)
		if err != nil {
			t.Fatalf("a re-encoded decision does not decode: %v", err)
		}
		if !proto.Equal(d, back) {
			t.Fatalf("decode(encode(d)) != d:\n%v\n%v", d, back)
		}
		if twice, _ := encode(back); !bytes.Equal(again, twice) {
			t.Fatal("encoding is not deterministic")
		}

		bind, err := podbook.ParseBind(payload)
		switch {
		case err != nil && !errors.Is(err, store.ErrCorrupt):
			t.Fatalf("podbook.ParseBind error %v is not ErrCorrupt", err)
		case err == nil && (bind.GetBind() == nil || TypeOf(bind) != berthv1.DecisionType_DECISION_TYPE_BIND):
			t.Fatalf("podbook.ParseBind gave a %v", TypeOf(bind))
		case err == nil && len(payload) < podbook.BindHintSize:
			t.Fatalf("podbook.ParseBind read a bind from %d bytes, shorter than the revision hint", len(payload))
		}
	})
}

// FuzzBindRecord checks Bind's hand encoding against the generic one for
// any pod identity, profile and node: the same bytes as a deterministic
// marshal of the Bind decision, the uid as the key, the revision hint in
// front; strings encode refuses (not UTF-8) are left to it.
func FuzzBindRecord(f *testing.F) {
	f.Add("uid-1", "ns", "p1", "", "node-1", uint64(42))
	f.Add("ü", "名前", "p", "other", "nœud", uint64(1<<40))
	f.Add("u", "", "", "", "", uint64(0))
	f.Add(string(bytes.Repeat([]byte("x"), 300)), "ns", "p", "s", "n", uint64(1))
	f.Fuzz(func(t *testing.T, uid, ns, name, scheduler, node string, from uint64) {
		pod := &model.Pod{UID: uid, Namespace: ns, Name: name, SchedulerName: scheduler}
		rec, ok := newBindRecord(pod, node, from)
		want, err := encode(bindDecision(pod, node))
		valid := utf8.ValidString(uid) && utf8.ValidString(ns) && utf8.ValidString(name) &&
			utf8.ValidString(profileOf(pod)) && utf8.ValidString(node)
		if ok != valid || (err == nil) != valid {
			t.Fatalf("newBindRecord ok %v, encode error %v, for strings valid %v", ok, err, valid)
		}
		if !ok {
			return
		}
		if !bytes.Equal(rec.payload, want) {
			t.Fatalf("payload %x, want %x", rec.payload, want)
		}
		if !bytes.Equal(rec.assumed, podbook.BindValue(from, want)) || string(rec.key) != uid {
			t.Fatalf("assumed %x key %q", rec.assumed, rec.key)
		}
		gotFrom := binary.BigEndian.Uint64(rec.assumed)
		d, err := podbook.ParseBind(rec.assumed)
		if err != nil || gotFrom != from || d.GetBind().GetNode() != node || d.GetPod().GetUid() != uid {
			t.Fatalf("parseAssumed = %d, %v, %v", gotFrom, d, err)
		}
	})
}
