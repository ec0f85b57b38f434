package decisionlog

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/server/decisionlog/decisiontest"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
)

// TestPlanIsTheCallsInOne makes the same decisions as one-item plans one
// by one and as one plan: the records, their revisions and the keyspaces
// must be the same, and the Log's memory (nominations, messages reported)
// too, so the next decisions are alike; the plan refuses the second Evict
// of a pod alone, as the one-item plan does.
func TestPlanIsTheCallsInOne(t *testing.T) {
	fitErr := &framework.FitError{NumAllNodes: 2, Diagnosis: framework.Diagnosis{NodeToStatus: framework.NewNodeToStatus()}}
	fitErr.Diagnosis.NodeToStatus.Set("n1", framework.NewStatus(framework.Unschedulable, "Insufficient cpu"))
	fitErr.Diagnosis.NodeToStatus.Set("n2", framework.NewStatus(framework.UnschedulableAndUnresolvable, "taint"))
	preemptor, other, late := pod("preemptor"), pod("other"), pod("late")
	victims := []*model.Pod{pod("v1"), pod("v2")}

	run := func(t *testing.T, grouped bool) (*Log, []*berthv1.Decision, map[store.Space][]store.KV) {
		l, st := newLog(t, bboltstore.Options{})
		ctx := t.Context()
		// Before the attempt: other and late nominated, preemptor reported.
		if err := l.Nominate(ctx, other, "n1"); err != nil {
			t.Fatal(err)
		}
		if err := l.Nominate(ctx, late, "n2"); err != nil {
			t.Fatal(err)
		}
		if err := l.Unschedulable(ctx, preemptor, "before", nil); err != nil {
			t.Fatal(err)
		}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		items := []framework.PlanItem{
			&framework.Eviction{Victim: victims[0], Node: "n1", Preemptor: preemptor, Message: "preempted"},
			&framework.Eviction{Victim: victims[1], Node: "n1", Preemptor: preemptor, Message: "preempted"},
			&framework.Eviction{Victim: victims[0], Node: "n1", Preemptor: preemptor, Message: "again"},
			&framework.ClearNomination{Pod: other, Reason: "taken"},
			&framework.Nomination{Pod: preemptor, Node: "n1"},
			&framework.Nomination{Pod: late, Node: "n1"},
			&framework.ClearNomination{Pod: late, Reason: "changed its mind"}, // names the node nominated just before
			&framework.UnschedulableReport{Pod: preemptor, Message: "0/2 nodes are available", FitErr: fitErr},
			&framework.UnschedulableReport{Pod: preemptor, Message: "0/2 nodes are available", FitErr: fitErr}, // repeats: not written
		}
		const again = 2 // the second Evict of victims[0]
		if !grouped {
			for i, item := range items {
				_, err := framework.SubmitOne(ctx, l, item)
				if i == again {
					if !errors.Is(err, ErrAlreadyEvicted) {
						t.Fatalf("second Evict of a victim: %v, want ErrAlreadyEvicted", err)
					}
					continue
				}
				must(err)
			}
		} else {
			_, before := st.Revisions()
			res, err := l.Submit(ctx, framework.Plan{Items: items})
			must(err)
			for i := range items {
				if err := res.Err(i); (i == again) != errors.Is(err, ErrAlreadyEvicted) || (i != again && err != nil) {
					t.Errorf("item %d refused: %v", i, err)
				}
			}
			want := []uint64{before + 1, before + 2, 0, before + 3, before + 4, before + 5, before + 6, before + 7, 0}
			if diff := cmp.Diff(want, res.Revisions); diff != "" {
				t.Errorf("revisions (-want +got):\n%s", diff)
			}
		}
		recs := decisiontest.StripTime(readAll(t, st))
		spaces := map[store.Space][]store.KV{}
		for _, sp := range store.Spaces() {
			kvs, err := st.List(sp)
			must(err)
			spaces[sp] = kvs
		}
		return l, recs, spaces
	}
	seqLog, seqRecs, seqSpaces := run(t, false)
	grpLog, grpRecs, grpSpaces := run(t, true)
	if diff := cmp.Diff(seqRecs, grpRecs, protocmp.Transform()); diff != "" {
		t.Errorf("records (-one by one +one plan):\n%s", diff)
	}
	if diff := cmp.Diff(seqSpaces, grpSpaces); diff != "" {
		t.Errorf("keyspaces (-one by one +one plan):\n%s", diff)
	}
	// The book's memory of each pod is the same too.
	memory := func(l *Log) map[string]string {
		out := map[string]string{}
		for _, d := range seqRecs {
			uid := d.GetPod().GetUid()
			node, nominated := l.book.Nomination(uid)
			rev, _ := l.book.NominationRevision(uid)
			msg, reported := l.book.LastMessage(uid)
			out[uid] = fmt.Sprintf("nominated %v %q at %d; reported %v %q", nominated, node, rev, reported, msg)
		}
		return out
	}
	if diff := cmp.Diff(memory(seqLog), memory(grpLog)); diff != "" {
		t.Errorf("the book's memory (-one by one +one plan):\n%s", diff)
	}
}

// TestPlanFailureUndoesItsDecisions: a plan whose commit fails leaves
// nothing behind, as failed one-item plans do: no record, the evictions
// no longer open in the book, no nomination or message remembered.
func TestPlanFailureUndoesItsDecisions(t *testing.T) {
	l, st := newLog(t, bboltstore.Options{})
	ctx := t.Context()
	victim, preemptor := pod("v"), pod("p")
	plan := framework.Plan{Items: []framework.PlanItem{
		&framework.Eviction{Victim: victim, Node: "n1", Preemptor: preemptor, Message: "preempted"},
		&framework.Nomination{Pod: preemptor, Node: "n1"},
		&framework.UnschedulableReport{Pod: preemptor, Message: "0/1 nodes are available"},
	}}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Submit(ctx, plan); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("commit on a closed store: %v, want ErrClosed", err)
	}
	if !l.book.OpenEviction(victim.UID, &berthv1.Evict{Node: "n1"}) {
		t.Error("the failed Evict is still open in the book")
	}
	if _, ok := l.book.Nomination(preemptor.UID); ok {
		t.Error("the failed Nominate is remembered")
	}
	if _, ok := l.book.LastMessage(preemptor.UID); ok {
		t.Error("the failed Unschedulable is remembered")
	}
}
