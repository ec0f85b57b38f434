package podbook

import (
	"context"
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/store"
)

// damagedLog is a decision log of binds, one per revision, in which some
// revisions are damaged: a read that reaches one fails, as bboltstore's
// does, without the records before it.
type damagedLog struct {
	records []store.Record
	damaged map[uint64]bool
}

func (l *damagedLog) List(store.Space) ([]store.KV, error) { return nil, nil }

func (l *damagedLog) Read(_ context.Context, from uint64, limit int) ([]store.Record, error) {
	var out []store.Record
	for _, r := range l.records {
		if r.Revision < from || (limit > 0 && len(out) == limit) {
			continue
		}
		if l.damaged[r.Revision] {
			return nil, &store.CorruptRecordError{Revision: r.Revision, Reason: "checksum mismatch"}
		}
		out = append(out, r)
	}
	return out, nil
}

func bindLog(t *testing.T, n int, damaged ...uint64) *damagedLog {
	t.Helper()
	l := &damagedLog{damaged: map[uint64]bool{}}
	for i := 1; i <= n; i++ {
		payload, err := proto.Marshal(&berthv1.Decision{
			Pod:    &berthv1.PodRef{Namespace: "ns", Name: fmt.Sprint("p", i), Uid: fmt.Sprint("uid-", i)},
			Action: &berthv1.Decision_Bind{Bind: &berthv1.Bind{Node: "n1"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		l.records = append(l.records, store.Record{Revision: uint64(i), Payload: payload})
	}
	for _, r := range damaged {
		l.damaged[r] = true
	}
	return l
}

// A damaged record in the way of a restored bind's search is stepped over:
// it must not stop berthd from starting (issue 23: a damaged record is
// refused when served, not fatal to a restart).
func TestFindBindStepsOverDamagedRecords(t *testing.T) {
	tests := []struct {
		name    string
		damaged []uint64
		from    uint64
		uid     string
		want    uint64
	}{
		{name: "damage before the bind", damaged: []uint64{3}, from: 1, uid: "uid-7", want: 7},
		{name: "damage at the hint", damaged: []uint64{5}, from: 5, uid: "uid-6", want: 6},
		{name: "bind before the damage", damaged: []uint64{9}, from: 1, uid: "uid-4", want: 4},
		{name: "two damaged in a row", damaged: []uint64{2, 3}, from: 1, uid: "uid-8", want: 8},
		{name: "the bind itself damaged", damaged: []uint64{6}, from: 1, uid: "uid-6", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := findBind(t.Context(), bindLog(t, 10, tt.damaged...), tt.from, tt.uid, "n1")
			if err != nil || got != tt.want {
				t.Errorf("findBind = %d, %v; want %d, nil", got, err, tt.want)
			}
		})
	}
}
