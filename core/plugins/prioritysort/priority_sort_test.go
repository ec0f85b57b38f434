package prioritysort_test

import (
	"context"
	"testing"
	"time"

	"github.com/berthsched/berth/core/framework"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/prioritysort"
)

func TestLess(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	queued := func(name string, priority int32, at time.Time) *framework.QueuedPodInfo {
		return &framework.QueuedPodInfo{PodInfo: framework.MustPodInfo(mt.MakePod(name).Priority(priority).Obj()), Timestamp: at}
	}
	tests := []struct {
		name string
		a, b *framework.QueuedPodInfo
		want bool
	}{
		{name: "higher priority first", a: queued("a", 10, t0.Add(time.Second)), b: queued("b", 5, t0), want: true},
		{name: "lower priority later", a: queued("a", 5, t0), b: queued("b", 10, t0.Add(time.Second)), want: false},
		{name: "equal priority, earlier first", a: queued("a", 5, t0), b: queued("b", 5, t0.Add(time.Second)), want: true},
		{name: "equal priority, later second", a: queued("a", 5, t0.Add(time.Second)), b: queued("b", 5, t0), want: false},
		{name: "equal in everything", a: queued("a", 5, t0), b: queued("b", 5, t0), want: false},
		{name: "negative priorities", a: queued("a", -1, t0), b: queued("b", -2, t0), want: true},
	}
	pl, err := prioritysort.New(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	sorter := pl.(framework.QueueSortPlugin)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sorter.Less(tc.a, tc.b); got != tc.want {
				t.Errorf("Less = %v, want %v", got, tc.want)
			}
		})
	}
}
