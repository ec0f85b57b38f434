package main

import (
	"encoding/json"
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// A bind of a pod Berth holds names its workload and pod set, in text and
// in JSON.
func TestWatchLineHeldPod(t *testing.T) {
	d := &berthv1.Decision{Revision: 7, Pod: &berthv1.PodRef{Namespace: "team", Name: "train-workers-1", Uid: "u-workers-1"},
		Action: &berthv1.Decision_Bind{Bind: &berthv1.Bind{Node: "n1", HeldPod: &berthv1.HeldPod{
			WorkloadName: "train", WorkloadUid: "u", PodSet: "workers", Index: 1,
		}}}}
	l := lineOf(d)
	if got, want := l.text(), "7 bind team/train-workers-1 -> n1 (held for workload team/train, pod set workers)"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"revision":7,"type":"bind","pod":"team/train-workers-1","node":"n1","heldPod":{"workload":"team/train","podSet":"workers","index":1}}`; got != want {
		t.Errorf("json %s, want %s", got, want)
	}
}
