package podbook_test

import (
	"slices"
	"testing"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/server/decisionlog"
	"github.com/berthsched/berth/server/podbook"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
	"github.com/berthsched/berth/store/etcdstore"
	"github.com/berthsched/berth/store/etcdstore/etcdtest"
)

// Kueue admissions are durable facts on either backend (kill -9 and
// failover): restored while admitted, not once the WorkloadEviction took
// them back or the workload was forgotten as gone.
func TestRestoreAdmissions(t *testing.T) {
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
				st, err := etcdstore.Open(t.Context(), cli, etcdstore.Options{Prefix: "/admissions/", CompactInterval: -1})
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
			for _, w := range []string{"a", "b", "c"} {
				a := &framework.Admission{Workload: framework.WorkloadRef{Namespace: "ns", Name: w, UID: "wl-" + w}, ClusterQueue: "cq",
					PodSets: []framework.PodSetAdmission{{Name: "main", Count: 1, Flavors: map[string]string{"cpu": "f1"}}}}
				if _, err := framework.SubmitOne(ctx, log, a); err != nil {
					t.Fatal(err)
				}
			}
			reopen := func() podbook.Facts {
				t.Helper()
				if err := book.Close(); err != nil {
					t.Fatal(err)
				}
				if err := st.Close(); err != nil {
					t.Fatal(err)
				}
				st = open()
				book = podbook.New(st, podbook.Options{})
				log = decisionlog.New(st, decisionlog.Options{Book: book})
				facts, err := book.Restore(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return facts
			}
			keys := func(f podbook.Facts) []string {
				var out []string
				for _, a := range f.Admissions {
					out = append(out, a.GetWorkloadNamespace()+"/"+a.GetWorkloadName()+"@"+a.GetClusterQueue()+":"+a.GetPodSets()[0].GetFlavors()["cpu"])
				}
				return out
			}
			facts := reopen()
			if got, want := keys(facts), []string{"ns/a@cq:f1", "ns/b@cq:f1", "ns/c@cq:f1"}; !slices.Equal(got, want) {
				t.Fatalf("admissions restored %v, want %v", got, want)
			}
			if facts.Empty() {
				t.Error("Facts with admissions say they are empty")
			}
			if _, err := framework.SubmitOne(ctx, log, &framework.WorkloadEviction{Workload: framework.WorkloadRef{Namespace: "ns", Name: "a"}, ClusterQueue: "cq"}); err != nil {
				t.Fatal(err)
			}
			if err := book.ForgetAdmission(ctx, "ns", "b", "wl-b"); err != nil {
				t.Fatal(err)
			}
			if got, want := keys(reopen()), []string{"ns/c@cq:f1"}; !slices.Equal(got, want) {
				t.Errorf("admissions restored after an eviction and a forget %v, want %v", got, want)
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
