package decisiontest

import (
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

func TestDiffIgnoresOnlyTime(t *testing.T) {
	got := []*berthv1.Decision{{Revision: 1, SchedulerName: "s", Time: timestamppb.New(time.Unix(5, 0))}}
	if d := Diff([]*berthv1.Decision{{Revision: 1, SchedulerName: "s"}}, got); d != "" {
		t.Errorf("time not ignored: %s", d)
	}
	if d := Diff([]*berthv1.Decision{{Revision: 2, SchedulerName: "s"}}, got); d == "" {
		t.Error("a different revision compared equal")
	}
	if got[0].Time == nil {
		t.Error("StripTime changed its input")
	}
}
