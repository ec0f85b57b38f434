package pressure

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseDefaults(t *testing.T) {
	cfg, err := Settings{}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, th := range cfg.Thresholds {
		keys = append(keys, th.Key())
	}
	want := []string{"memory.available<100Mi", "allocatableMemory.available<100Mi", "nodefs.available<10%",
		"nodefs.inodesFree<5%", "imagefs.available<15%", "imagefs.inodesFree<5%"}
	if d := cmp.Diff(want, keys); d != "" {
		t.Errorf("default thresholds (-want +got):\n%s", d)
	}
	if cfg.PressureTransitionPeriod != 5*time.Minute || cfg.MaxPodGracePeriodSeconds != 0 {
		t.Errorf("transition %v, max grace %d; want 5m, 0", cfg.PressureTransitionPeriod, cfg.MaxPodGracePeriodSeconds)
	}
}

func TestParseSoftAndReclaim(t *testing.T) {
	cfg, err := Settings{
		EvictionHard:                     map[string]string{"memory.available": "200Mi", "pid.available": "0%"},
		EvictionSoft:                     map[string]string{"memory.available": "1Gi", "nodefs.available": "20%"},
		EvictionSoftGracePeriod:          map[string]string{"memory.available": "30s", "nodefs.available": "1m"},
		EvictionMinimumReclaim:           map[string]string{"memory.available": "500Mi"},
		EvictionPressureTransitionPeriod: "30s",
		EvictionMaxPodGracePeriod:        60,
	}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, th := range cfg.Thresholds {
		keys = append(keys, th.Key())
	}
	want := []string{ // 0% is ignored, as by the kubelet
		"memory.available<200Mi minReclaim=500Mi", "memory.available<1Gi grace=30s minReclaim=500Mi",
		"allocatableMemory.available<200Mi minReclaim=500Mi", "nodefs.available<20% grace=1m0s"}
	if d := cmp.Diff(want, keys); d != "" {
		t.Errorf("thresholds (-want +got):\n%s", d)
	}
	if cfg.PressureTransitionPeriod != 30*time.Second || cfg.MaxPodGracePeriodSeconds != 60 {
		t.Errorf("transition %v, max grace %d", cfg.PressureTransitionPeriod, cfg.MaxPodGracePeriodSeconds)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Settings
		want string
	}{
		{"unknown signal", Settings{EvictionHard: map[string]string{"memory.free": "1Gi"}}, "evictionHard[memory.free]: unknown eviction signal"},
		{"allocatable is derived", Settings{EvictionSoft: map[string]string{"allocatableMemory.available": "1Gi"}}, "evictionSoft[allocatableMemory.available]: unknown eviction signal"},
		{"malformed quantity", Settings{EvictionHard: map[string]string{"memory.available": "lots"}}, `evictionHard[memory.available]: malformed quantity "lots"`},
		{"malformed percentage", Settings{EvictionHard: map[string]string{"nodefs.available": "x%"}}, `evictionHard[nodefs.available]: malformed percentage "x%"`},
		{"percentage over 100", Settings{EvictionHard: map[string]string{"nodefs.available": "150%"}}, "evictionHard[nodefs.available]: percentage 150% is not within"},
		{"negative threshold", Settings{EvictionHard: map[string]string{"memory.available": "-1Mi"}}, "evictionHard[memory.available]: threshold -1Mi must be positive"},
		{"soft without grace", Settings{EvictionSoft: map[string]string{"memory.available": "1Gi"}}, "evictionSoft[memory.available]: no grace period in evictionSoftGracePeriod"},
		{"negative grace", Settings{EvictionSoftGracePeriod: map[string]string{"memory.available": "-5s"}}, "evictionSoftGracePeriod[memory.available]: -5s is negative"},
		{"malformed grace", Settings{EvictionSoftGracePeriod: map[string]string{"memory.available": "soon"}}, `evictionSoftGracePeriod[memory.available]: "soon" is not a duration`},
		{"negative reclaim", Settings{EvictionMinimumReclaim: map[string]string{"memory.available": "-1Gi"}}, "evictionMinimumReclaim[memory.available]: -1Gi is negative"},
		{"zero percent reclaim", Settings{EvictionMinimumReclaim: map[string]string{"nodefs.available": "0%"}}, "evictionMinimumReclaim[nodefs.available]: percentage 0% must be positive"},
		{"negative transition", Settings{EvictionPressureTransitionPeriod: "-1m"}, "evictionPressureTransitionPeriod: -1m is negative"},
		{"negative max grace", Settings{EvictionMaxPodGracePeriod: -1}, "evictionMaxPodGracePeriod: -1 is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.s.Parse()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestDecodeSummaryErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"not json", `{`, "summary: unexpected EOF"},
		{"unknown field", `{"node":{"nodeName":"n1","memry":{}}}`, `unknown field "memry"`},
		{"no node name", `{"node":{}}`, "summary: node.nodeName: required"},
		{"pod without name", `{"node":{"nodeName":"n1"},"pods":[{"podRef":{"namespace":"d"}}]}`, "summary: pods[0].podRef: name and namespace are required"},
		{"duplicate pod", `{"node":{"nodeName":"n1"},"pods":[{"podRef":{"name":"a","namespace":"d"}},{"podRef":{"name":"a","namespace":"d"}}]}`, "summary: pods[1].podRef: d/a already reported in pods[0]"},
		{"trailing data", `{"node":{"nodeName":"n1"}} {}`, "summary: data after the Summary object"},
		// encoding/json keeps the last of repeated keys: a second node (or
		// memory, or pods) would be applied silently.
		{"two nodes", `{"node":{"nodeName":"n1"},"node":{"nodeName":"n2"}}`, `summary: key "node" appears twice in one object`},
		{"two memory stats", `{"node":{"nodeName":"n1","memory":{"availableBytes":1},"memory":{"availableBytes":2}}}`, `summary: key "node.memory" appears twice in one object`},
		{"repeated key in a pod", `{"node":{"nodeName":"n1"},"pods":[{"podRef":{"name":"a","name":"b","namespace":"d"}}]}`, `summary: key "pods[0].podRef.name" appears twice in one object`},
		{"negative usage", `{"node":{"nodeName":"n1","memory":{"availableBytes":-1}}}`, "cannot unmarshal number -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeSummary([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestResolvePodRefs(t *testing.T) {
	pods := []*Pod{{UID: "u1", Namespace: "d", Name: "a"}, {UID: "u2", Namespace: "d", Name: "b"}}
	s, err := DecodeSummary([]byte(`{"node":{"nodeName":"n1"},"pods":[{"podRef":{"name":"a","namespace":"d"}},{"podRef":{"name":"b","namespace":"d","uid":"u2"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := ResolvePodRefs(s, pods); err != nil {
		t.Fatal(err)
	}
	if s.Pods[0].PodRef.UID != "u1" {
		t.Errorf("missing uid not filled in: %q", s.Pods[0].PodRef.UID)
	}
	for in, want := range map[string]string{
		`{"node":{"nodeName":"n1"},"pods":[{"podRef":{"name":"zz","namespace":"d"}}]}`:           "pods[0].podRef: pod d/zz is not on node n1",
		`{"node":{"nodeName":"n1"},"pods":[{"podRef":{"name":"a","namespace":"d","uid":"u2"}}]}`: "pods[0].podRef.uid: pod d/a (uid u2) is not on node n1",
	} {
		s, err := DecodeSummary([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if err := ResolvePodRefs(s, pods); err == nil || err.Error() != want {
			t.Errorf("got %v, want %q", err, want)
		}
	}
}
