package features

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTableIsSorted(t *testing.T) {
	if !slices.IsSortedFunc(kube137, func(a, b Spec) int { return strings.Compare(a.Name, b.Name) }) {
		t.Fatal("kube137 is not sorted by name: lookup needs it")
	}
}

func TestDefaults(t *testing.T) {
	var g Gates
	for _, tc := range []struct {
		name string
		want bool
	}{
		{DRADeviceTaintRules, true},      // GA in 1.37, on
		{"VolumeLimitScaling", true},     // beta, on
		{"StorageCapacityScoring", true}, // beta, on: VolumeBinding scores
		{"CompositePodGroup", false},     // alpha
		{"PodGroupPreemptionPolicy", false},
		{GenericWorkload, true}, // Berth's default, see berthDefaults
		{"NoSuchGate", false},
	} {
		if got := g.Enabled(tc.name); got != tc.want {
			t.Errorf("Enabled(%s) = %t, want %t", tc.name, got, tc.want)
		}
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, in     string
		want         map[string]bool
		wantWarnings []string
		wantErr      string
	}{
		{name: "empty", in: "", want: map[string]bool{}},
		{name: "a switchable gate", in: "GenericWorkload=false", want: map[string]bool{GenericWorkload: false}},
		{name: "group preemption policies", in: "PodGroupPreemptionPolicy=true", want: map[string]bool{PodGroupPreemptionPolicy: true}},
		{name: "defaults restated, spaces", in: " DRAPrioritizedList=true , OpportunisticBatching=true", want: map[string]bool{"DRAPrioritizedList": true, "OpportunisticBatching": true}},
		{name: "device taint rules off", in: "DRADeviceTaintRules=false", want: map[string]bool{DRADeviceTaintRules: false}},
		{name: "1.36 gates dropped", in: "GenericWorkload=true,GangScheduling=true,WorkloadAwarePreemption=true", want: map[string]bool{GenericWorkload: true},
			wantWarnings: []string{
				"feature gate GangScheduling=true is kube 1.36's, removed in 1.37 (GenericWorkload covers it): ignored",
				"feature gate WorkloadAwarePreemption=true is kube 1.36's, removed in 1.37 (GenericWorkload covers it): ignored",
			}},
		{name: "unknown", in: "NoSuchGate=true", wantErr: "unrecognized feature gate: NoSuchGate"},
		{name: "locked", in: "DynamicResourceAllocation=false", wantErr: "cannot set feature gate DynamicResourceAllocation to false, feature is locked to true"},
		{name: "composite groups", in: "CompositePodGroup=true,TopologyAwareWorkloadScheduling=true",
			want: map[string]bool{CompositePodGroup: true, TopologyAwareWorkloadScheduling: true}},
		{name: "composite groups need topology-aware scheduling", in: "CompositePodGroup=true",
			wantErr: "CompositePodGroup is enabled, but depends on features that are disabled: [TopologyAwareWorkloadScheduling]"},
		{name: "composite groups need GenericWorkload", in: "CompositePodGroup=true,TopologyAwareWorkloadScheduling=true,GenericWorkload=false",
			wantErr: "CompositePodGroup is enabled, but depends on features that are disabled: [GenericWorkload]"},
		{name: "not modelled", in: "OpportunisticBatching=false", wantErr: "cannot set feature gate OpportunisticBatching to false: Berth runs with OpportunisticBatching=true"},
		{name: "not a bool", in: "GenericWorkload=yes", wantErr: "invalid value of GenericWorkload=yes"},
		{name: "no value", in: "GenericWorkload", wantErr: "missing bool value for GenericWorkload"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, warnings, err := Parse(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Parse(%q) error %v, want %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if diff := cmp.Diff(tc.want, g.Set()); diff != "" {
				t.Errorf("gates (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantWarnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSwitch(t *testing.T) {
	g, _, err := Parse("GenericWorkload=false")
	if err != nil {
		t.Fatal(err)
	}
	if g.Enabled(GenericWorkload) {
		t.Error("GenericWorkload still on")
	}
	if g.String() != "GenericWorkload=false" {
		t.Errorf("String() = %q", g.String())
	}
}
