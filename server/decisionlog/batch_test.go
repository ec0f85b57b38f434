package decisionlog

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
)

// TestBatchIsTheCallsInOne makes the same decisions through the Log's
// calls one by one and through a Batch: the records, their revisions and
// the keyspaces must be the same, and the Log's memory (nominations,
// messages reported) too, so the next decisions are alike.
func TestBatchIsTheCallsInOne(t *testing.T) {
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
		var (
			evict     = l.Evict
			nominate  = l.Nominate
			clear     = l.ClearNomination
			unsched   = l.Unschedulable
			commit    = func() error { return nil }
			staged    *Batch
			unchanged = func() {}
		)
		if grouped {
			staged = l.NewBatch().(*Batch)
			evict, nominate, clear, unsched, commit = staged.Evict, staged.Nominate, staged.ClearNomination, staged.Unschedulable, func() error { return staged.Commit(ctx) }
			_, last := st.Revisions()
			unchanged = func() {
				t.Helper()
				if _, now := st.Revisions(); now != last {
					t.Fatalf("staging wrote: revision %d, was %d", now, last)
				}
			}
		}
		for _, v := range victims {
			if err := evict(ctx, v, "n1", preemptor, "preempted"); err != nil {
				t.Fatal(err)
			}
		}
		if err := evict(ctx, victims[0], "n1", preemptor, "again"); !errors.Is(err, ErrAlreadyEvicted) {
			t.Fatalf("second Evict of a victim: %v, want ErrAlreadyEvicted", err)
		}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(clear(ctx, other, "taken"))
		must(nominate(ctx, preemptor, "n1"))
		must(nominate(ctx, late, "n1"))
		must(clear(ctx, late, "changed its mind")) // names the node staged just before
		must(unsched(ctx, preemptor, "0/2 nodes are available", fitErr))
		must(unsched(ctx, preemptor, "0/2 nodes are available", fitErr)) // repeats: not written
		unchanged()
		must(commit())
		recs := stripTime(readAll(t, st))
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
		t.Errorf("records (-calls +batch):\n%s", diff)
	}
	if diff := cmp.Diff(seqSpaces, grpSpaces); diff != "" {
		t.Errorf("keyspaces (-calls +batch):\n%s", diff)
	}
	if diff := cmp.Diff(seqLog.noms, grpLog.noms, cmp.AllowUnexported(nomEntry{})); diff != "" {
		t.Errorf("nominations (-calls +batch):\n%s", diff)
	}
	if diff := cmp.Diff(seqLog.reported, grpLog.reported); diff != "" {
		t.Errorf("reported (-calls +batch):\n%s", diff)
	}
}

// TestBatchFailureUndoesItsDecisions: a batch whose commit fails leaves
// nothing behind, as failed calls do: no record, the evictions no longer
// open in the ledger, no nomination or message remembered.
func TestBatchFailureUndoesItsDecisions(t *testing.T) {
	l, st := newLog(t, bboltstore.Options{})
	ctx := t.Context()
	victim, preemptor := pod("v"), pod("p")
	b := l.NewBatch()
	if err := b.Evict(ctx, victim, "n1", preemptor, "preempted"); err != nil {
		t.Fatal(err)
	}
	if err := b.Nominate(ctx, preemptor, "n1"); err != nil {
		t.Fatal(err)
	}
	if err := b.Unschedulable(ctx, preemptor, "0/1 nodes are available", nil); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(ctx); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("commit on a closed store: %v, want ErrClosed", err)
	}
	if !l.ledger.OpenEviction(victim.UID, "n1") {
		t.Error("the failed Evict is still open in the ledger")
	}
	if _, ok := l.noms[preemptor.UID]; ok {
		t.Error("the failed Nominate is remembered")
	}
	if _, ok := l.reported[preemptor.UID]; ok {
		t.Error("the failed Unschedulable is remembered")
	}
}
