package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

func testPlan() *berthv1.DeschedulePlan {
	return &berthv1.DeschedulePlan{
		DryRun: true, PlanSeconds: 0.012,
		Moves: []*berthv1.DescheduleMove{{Pod: &berthv1.PodRef{Namespace: "default", Name: "web-1"}, From: "n1", To: "n2",
			Profile: "p", Strategy: "LowNodeUtilization", Reason: "utilization evens out"}},
		Skipped: []*berthv1.DescheduleSkip{{Pod: &berthv1.PodRef{Namespace: "default", Name: "db-0"}, From: "n1", Profile: "p",
			Strategy: "RemoveDuplicates", Reason: "the scheduler would place it back on n1", LandsBack: true}},
	}
}

func TestPlanJSONLines(t *testing.T) {
	var b bytes.Buffer
	if err := writePlanJSON(&b, testPlan()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines; want a move, a skip and a summary:\n%s", len(lines), b.String())
	}
	var move planMoveLine
	if err := json.Unmarshal([]byte(lines[0]), &move); err != nil || move != (planMoveLine{Pod: "default/web-1", From: "n1", To: "n2", Profile: "p", Strategy: "LowNodeUtilization", Reason: "utilization evens out"}) {
		t.Errorf("move line %s (%v)", lines[0], err)
	}
	var skip planSkipLine
	if err := json.Unmarshal([]byte(lines[1]), &skip); err != nil || !skip.LandsBack || skip.Skipped == "" || skip.Pod != "default/db-0" {
		t.Errorf("skip line %s (%v)", lines[1], err)
	}
	var sum planSummaryLine
	if err := json.Unmarshal([]byte(lines[2]), &sum); err != nil || sum.Moves != 1 || sum.Skipped != 1 || !sum.DryRun {
		t.Errorf("summary line %s (%v)", lines[2], err)
	}
}

func TestPlanText(t *testing.T) {
	var b bytes.Buffer
	if err := writePlanText(&b, testPlan()); err != nil {
		t.Fatal(err)
	}
	want := "move default/web-1 n1 -> n2 (LowNodeUtilization): utilization evens out\n" +
		"skip default/db-0 on n1 (RemoveDuplicates): the scheduler would place it back on n1\n" +
		"1 moves (dry run), 1 skipped, planned in 12ms\n"
	if b.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), want)
	}
}
