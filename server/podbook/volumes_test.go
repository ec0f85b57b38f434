package podbook_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/decisionlog"
	"github.com/berthsched/berth/server/podbook"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
	"github.com/berthsched/berth/store/etcdstore"
	"github.com/berthsched/berth/store/etcdstore/etcdtest"
)

// The volume bindings of a Bind awaiting its outcome are restored with it,
// from either backend (issue 30: the reservations survive kill -9 and
// failover); once the bind is settled they are not.
func TestRestoreVolumes(t *testing.T) {
	backends := map[string]func(t *testing.T) (open func() store.Store){
		"bbolt": func(t *testing.T) func() store.Store {
			dir := t.TempDir()
			return func() store.Store {
				st, err := bboltstore.Open(t.Context(), dir, bboltstore.Options{})
				if err != nil {
					t.Fatal(err)
				}
				return st
			}
		},
		"etcd": func(t *testing.T) func() store.Store {
			_, cli := etcdtest.New(t)
			return func() store.Store {
				st, err := etcdstore.Open(t.Context(), cli, etcdstore.Options{Prefix: "/book/", CompactInterval: -1})
				if err != nil {
					t.Fatal(err)
				}
				return st
			}
		},
	}
	for name, backend := range backends {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			open := backend(t)
			st := open()
			book := podbook.New(st, podbook.Options{})
			log := decisionlog.New(st, decisionlog.Options{Book: book})
			db := &model.Pod{UID: "uid-db", Namespace: "ns", Name: "db"}
			vols := []framework.VolumeBinding{{Claim: "data", Volume: "pv-1"}, {Claim: "scratch", SelectedNode: "n1"}}
			for _, b := range []*framework.Bind{{Pod: db, Node: "n1", Volumes: vols}, {Pod: pod("plain"), Node: "n2"}} {
				if _, err := framework.SubmitOne(ctx, log, b); err != nil {
					t.Fatal(err)
				}
			}
			reopen := func() *podbook.Facts {
				if err := book.Close(); err != nil {
					t.Fatal(err)
				}
				if err := st.Close(); err != nil {
					t.Fatal(err)
				}
				st = open()
				book = podbook.New(st, podbook.Options{})
				facts, err := book.Restore(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return &facts
			}
			facts := reopen()
			want := []scheduler.RestoredVolumes{{PodUID: "uid-db", Namespace: "ns", Bindings: vols}}
			if diff := cmp.Diff(want, facts.Volumes); diff != "" {
				t.Errorf("volumes restored (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, facts.Scheduler().Volumes); diff != "" {
				t.Errorf("volumes handed to the scheduler (-want +got):\n%s", diff)
			}
			// Confirmed, the bind's reservation is the orchestrator's to show.
			sched := newFakeScheduler()
			sched.add(db)
			outcomes := podbook.NewOutcomes(book, sched, nil)
			if err := outcomes.ReportBindResult(ctx, db.UID, "n1", true, ""); err != nil {
				t.Fatal(err)
			}
			if facts := reopen(); len(facts.Volumes) != 0 {
				t.Errorf("volumes restored after the bind was confirmed: %v", facts.Volumes)
			}
			if err := book.Close(); err != nil {
				t.Fatal(err)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
