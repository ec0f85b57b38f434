package gang_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/gang"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// slots is a Placer over nodes with a number of free slots each; every
// member takes one, on the first node with room.
type slots struct {
	free map[string]int
	log  []string
}

func (s *slots) Place(_ context.Context, m *model.Pod) (string, bool, string) {
	for _, n := range []string{"a", "b"} {
		if s.free[n] > 0 {
			s.free[n]--
			s.log = append(s.log, "place "+m.Name+" "+n)
			return n, true, ""
		}
	}
	return "", false, "0/2 nodes are available: 2 full."
}

func (s *slots) Undo(_ context.Context, m *model.Pod, n string) {
	s.free[n]++
	s.log = append(s.log, "undo "+m.Name+" "+n)
}

func TestPlace(t *testing.T) {
	grp := &model.PodGroup{Namespace: "default", Name: "g", MinCount: 3}
	members := func() []*model.Pod {
		ms := []*model.Pod{mt.MakePod("m2").Obj(), mt.MakePod("m1").Priority(5).Obj(), mt.MakePod("m0").Obj()}
		gang.Order(ms)
		return ms
	}
	t.Run("quorum keeps every member that fit", func(t *testing.T) {
		s := &slots{free: map[string]int{"a": 2, "b": 1}}
		r := gang.Place(context.Background(), grp, 2, append(members(), mt.MakePod("m3").Obj()), s)
		if !r.Scheduled || len(r.Placed) != 3 {
			t.Fatalf("scheduled %v, placed %v", r.Scheduled, r.Placed)
		}
		want := "pod group default/g: placed 3 members; 1 did not fit; m3: 0/2 nodes are available: 2 full."
		if r.Message() != want {
			t.Errorf("message %q, want %q", r.Message(), want)
		}
	})
	t.Run("short of quorum undoes everything", func(t *testing.T) {
		s := &slots{free: map[string]int{"a": 1, "b": 1}}
		r := gang.Place(context.Background(), grp, 3, members(), s)
		if r.Scheduled || len(r.Placed) != 0 {
			t.Fatalf("scheduled %v, placed %v", r.Scheduled, r.Placed)
		}
		wantLog := []string{"place m1 a", "place m0 b", "undo m0 b", "undo m1 a"}
		if diff := cmp.Diff(wantLog, s.log); diff != "" {
			t.Errorf("placer calls (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(map[string]int{"a": 1, "b": 1}, s.free); diff != "" {
			t.Errorf("capacity held after a failed cycle (-want +got):\n%s", diff)
		}
		want := "pod group default/g: 2 of 3 pending members fit, 3 needed (min_count 3); m2: 0/2 nodes are available: 2 full."
		if r.Message() != want {
			t.Errorf("message %q, want %q", r.Message(), want)
		}
	})
}

func TestRegistry(t *testing.T) {
	r := gang.NewRegistry()
	g := &model.PodGroup{Namespace: "ns", Name: "g", MinCount: 2}
	if created, err := r.Set(g); err != nil || !created {
		t.Fatalf("Set: %v %v", created, err)
	}
	for _, tc := range []struct {
		g    model.PodGroup
		want error
	}{
		{model.PodGroup{Namespace: "ns", Name: "g", MinCount: 2}, nil},
		{model.PodGroup{Namespace: "ns", Name: "g", MinCount: 3}, gang.ErrSpecImmutable},
		{model.PodGroup{Namespace: "ns", Name: "g", MinCount: 2, TopologyKey: "zone"}, gang.ErrSpecImmutable},
		{model.PodGroup{Namespace: "ns", Name: "h", MinCount: 0}, gang.ErrInvalid},
		{model.PodGroup{Namespace: "ns", Name: "", MinCount: 1}, gang.ErrInvalid},
	} {
		if _, err := r.Set(&tc.g); !errors.Is(err, tc.want) {
			t.Errorf("Set(%+v): %v, want %v", tc.g, err, tc.want)
		}
	}
	p := mt.MakePod("p").Namespace("ns").Group("g").Obj()
	if st := gang.GateStatus(r, p); st == nil || st.Message() != "waiting for pod group ns/g: 0 of its min_count 2 pods exist" {
		t.Errorf("gate with no members: %v", st)
	}
	r.AddMember(p)
	r.AddMember(mt.MakePod("q").Namespace("ns").Group("g").Obj())
	if st := gang.GateStatus(r, p); st != nil {
		t.Errorf("gate with min_count members: %v", st)
	}
	r.RemoveMember(p)
	if got := r.Members("ns/g"); !cmp.Equal(got, []string{"uid-q"}) {
		t.Errorf("members %v", got)
	}
}
