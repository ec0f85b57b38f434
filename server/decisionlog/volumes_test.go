package decisionlog

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/store/bboltstore"
)

// A Bind carries the volume bindings VolumeBinding's Reserve made (a
// volume chosen, a node to provision on), durably: they are in the log
// after a restart as they were sent.
func TestBindWithVolumes(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir, bboltstore.Options{})
	l := New(st, Options{})
	p := pod("db")
	p.Volumes = []model.PodVolume{{Name: "data", ClaimName: "data"}, {Name: "scratch", ClaimName: "db-scratch"}}
	vols := []framework.VolumeBinding{{Claim: "data", Volume: "pv-1"}, {Claim: "db-scratch", SelectedNode: "n1"}}
	if _, err := framework.SubmitOne(t.Context(), l, &framework.Bind{Pod: p, Node: "n1", Volumes: vols}); err != nil {
		t.Fatal(err)
	}
	want := []*berthv1.Decision{{Revision: 1, SchedulerName: "default-scheduler", Pod: ref("db"), Action: &berthv1.Decision_Bind{Bind: &berthv1.Bind{
		Node: "n1", Volumes: []*berthv1.VolumeBinding{{Claim: "data", Volume: "pv-1"}, {Claim: "db-scratch", SelectedNode: "n1"}},
	}}}}
	opts := []cmp.Option{protocmp.Transform(), protocmp.IgnoreFields(&berthv1.Decision{}, "time")}
	if diff := cmp.Diff(want, readAll(t, st), opts...); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	_, st = reopen(t, l, st, dir)
	if diff := cmp.Diff(want, readAll(t, st), opts...); diff != "" {
		t.Errorf("decisions after a restart (-want +got):\n%s", diff)
	}
}
