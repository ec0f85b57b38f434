package policy_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/deschedule/policy"
	"github.com/berthsched/berth/core/model"
)

const head = "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n"

func profileWith(config, plugins string) string {
	return head + "profiles:\n- name: p\n  pluginConfig:\n" + config + "  plugins:\n" + plugins
}

var classes = policy.ClassList{{Name: "high", Value: 1000}}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, doc, field, msg string
		unsupported           bool
	}{
		{name: "wrong version", doc: "apiVersion: descheduler/v1alpha1\nkind: DeschedulerPolicy\n", field: "apiVersion", msg: "want \"descheduler/v1alpha2\""},
		{name: "wrong kind", doc: "apiVersion: descheduler/v1alpha2\nkind: Policy\n", field: "kind", msg: "DeschedulerPolicy"},
		{name: "unknown field", doc: head + "maxNoOfPodsPerNode: 1\n", field: "", msg: "unknown field"},
		{name: "bad node selector", doc: head + "nodeSelector: \"a in b\"\n", field: "nodeSelector", msg: "parentheses"},
		{name: "bad interval", doc: head + "deschedulingInterval: soon\n", field: "deschedulingInterval", msg: "not a duration"},
		{name: "metrics", doc: head + "metricsCollector: {enabled: true}\n", field: "metricsCollector", unsupported: true},
		{name: "unknown plugin config", doc: profileWith("  - name: Nope\n", ""), field: "profiles[0].pluginConfig[0].name", msg: "not registered"},
		{name: "failed pods unsupported", doc: profileWith("  - name: RemoveFailedPods\n", ""), field: "profiles[0].pluginConfig[0].name", unsupported: true},
		{name: "enabled without config", doc: profileWith("  - name: DefaultEvictor\n", "    deschedule: {enabled: [PodLifeTime]}\n"), field: "profiles[0].plugins.deschedule.enabled[0]", msg: "no pluginConfig"},
		{name: "wrong extension point", doc: profileWith("  - name: LowNodeUtilization\n    args: {thresholds: {cpu: 10}, targetThresholds: {cpu: 20}}\n", "    deschedule: {enabled: [LowNodeUtilization]}\n"), field: "profiles[0].plugins.deschedule.enabled[0]", msg: "not a deschedule plugin"},
		{name: "threshold over 100", doc: profileWith("  - name: LowNodeUtilization\n    args: {thresholds: {cpu: 120}, targetThresholds: {cpu: 130}}\n", ""), field: "profiles[0].pluginConfig[0].args.thresholds[cpu]", msg: "not in [0, 100]"},
		{name: "threshold above target", doc: profileWith("  - name: LowNodeUtilization\n    args: {thresholds: {cpu: 60}, targetThresholds: {cpu: 50}}\n", ""), field: "profiles[0].pluginConfig[0].args.thresholds[cpu]", msg: "greater than targetThresholds"},
		{name: "different resources", doc: profileWith("  - name: LowNodeUtilization\n    args: {thresholds: {cpu: 10}, targetThresholds: {memory: 50}}\n", ""), field: "profiles[0].pluginConfig[0].args.targetThresholds", msg: "different resources"},
		{name: "unknown arg", doc: profileWith("  - name: PodLifeTime\n    args: {maxPodLifeTime: 10}\n", ""), field: "profiles[0].pluginConfig[0].args", msg: "unknown field"},
		{name: "lifetime without criterion", doc: profileWith("  - name: PodLifeTime\n    args: {}\n", ""), field: "profiles[0].pluginConfig[0].args", msg: "at least one filtering criterion"},
		{name: "restart threshold", doc: profileWith("  - name: RemovePodsHavingTooManyRestarts\n    args: {podRestartThreshold: 0}\n", ""), field: "profiles[0].pluginConfig[0].args.podRestartThreshold", msg: "at least 1"},
		{name: "include and exclude", doc: profileWith("  - name: RemovePodsViolatingNodeTaints\n    args: {namespaces: {include: [a], exclude: [b]}}\n", ""), field: "profiles[0].pluginConfig[0].args.namespaces", msg: "only one of"},
		{name: "node affinity type", doc: profileWith("  - name: RemovePodsViolatingNodeAffinity\n    args: {}\n", ""), field: "profiles[0].pluginConfig[0].args.nodeAffinityType", msg: "needs to be set"},
		{name: "threshold both", doc: profileWith("  - name: DefaultEvictor\n    args: {priorityThreshold: {name: high, value: 5}}\n", ""), field: "profiles[0].pluginConfig[0].args.priorityThreshold", msg: "only one of"},
		{name: "threshold class unknown", doc: profileWith("  - name: DefaultEvictor\n    args: {priorityThreshold: {name: nope}}\n", ""), field: "profiles[0].pluginConfig[0].args.priorityThreshold.name", msg: "no PriorityClass"},
		{name: "protections with legacy", doc: profileWith("  - name: DefaultEvictor\n    args: {evictLocalStoragePods: true, podProtections: {extraEnabled: [PodsWithPVC]}}\n", ""), field: "profiles[0].pluginConfig[0].args.podProtections", msg: "deprecated"},
		{name: "bad protection", doc: profileWith("  - name: DefaultEvictor\n    args: {podProtections: {defaultDisabled: [PodsWithPVC]}}\n", ""), field: "profiles[0].pluginConfig[0].args.podProtections.defaultDisabled[0]", msg: "is not one of"},
		{name: "bad selector operator", doc: profileWith("  - name: DefaultEvictor\n    args: {labelSelector: {matchExpressions: [{key: a, operator: Has}]}}\n", ""), field: "profiles[0].pluginConfig[0].args.labelSelector.matchExpressions[0].operator", msg: "not In"},
		{name: "spread constraint kind", doc: profileWith("  - name: RemovePodsViolatingTopologySpreadConstraint\n    args: {constraints: [Always]}\n", ""), field: "profiles[0].pluginConfig[0].args.constraints[0]", msg: "not DoNotSchedule"},
		{name: "conditions unsupported", doc: profileWith("  - name: PodLifeTime\n    args: {conditions: [{type: Ready}]}\n", ""), field: "profiles[0].pluginConfig[0].args.conditions", unsupported: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := policy.Decode([]byte(tc.doc), classes)
			var fe *policy.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T); want a *FieldError", err, err)
			}
			if fe.Field != tc.field {
				t.Errorf("field %q; want %q (%v)", fe.Field, tc.field, err)
			}
			if tc.unsupported != errors.Is(err, policy.ErrUnsupported) {
				t.Errorf("%v: unsupported is %v, want %v", err, !tc.unsupported, tc.unsupported)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("%v; want it to say %q", err, tc.msg)
			}
		})
	}
}

func TestDecodeDefaults(t *testing.T) {
	doc := head + `maxNoOfPodsToEvictPerNode: 2
deschedulingInterval: 5m
profiles:
- name: a
  pluginConfig:
  - name: RemovePodsViolatingNodeTaints
  plugins:
    deschedule: {enabled: [RemovePodsViolatingNodeTaints]}
- name: b
  pluginConfig:
  - name: DefaultEvictor
    args: {priorityThreshold: {name: high}, evictLocalStoragePods: true, ignorePvcPods: true, nodeFit: true}
  - name: LowNodeUtilization
    args: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}
  plugins:
    balance: {enabled: [LowNodeUtilization]}
`
	p, err := policy.Decode([]byte(doc), classes)
	if err != nil {
		t.Fatal(err)
	}
	if *p.MaxPodsToEvictPerNode != 2 || p.Interval.Minutes() != 5 || p.MaxPodsToEvictTotal != nil {
		t.Errorf("limits/interval: %+v", p)
	}
	a, b := p.Profiles[0].Evictor, p.Profiles[1].Evictor
	wantDefault := map[policy.Protection]bool{
		policy.PodsWithLocalStorage: true, policy.DaemonSetPods: true, policy.SystemCriticalPods: true,
		policy.FailedBarePods: true, policy.PodsWithPVC: false, policy.PodsWithoutPDB: false,
	}
	if d := cmp.Diff(wantDefault, a.Protections); d != "" {
		t.Errorf("default protections (-want +got):\n%s", d)
	}
	if a.PriorityThreshold != model.SystemCriticalPriority || b.PriorityThreshold != 1000 {
		t.Errorf("thresholds %d, %d", a.PriorityThreshold, b.PriorityThreshold)
	}
	if b.Protections[policy.PodsWithLocalStorage] || !b.Protections[policy.PodsWithPVC] || !b.NodeFit {
		t.Errorf("legacy flags not folded in: %+v", b)
	}
	if len(p.Profiles[0].Deschedule) != 1 || len(p.Profiles[1].Balance) != 1 {
		t.Errorf("strategies: %+v", p.Profiles)
	}
	if _, ok := p.Profiles[1].Balance[0].Args.(*policy.LowNodeUtilizationArgs); !ok {
		t.Errorf("balance args %T", p.Profiles[1].Balance[0].Args)
	}
}

func TestParseSelector(t *testing.T) {
	sel, err := policy.ParseSelector("zone in (a, b),tier!=db,gpu,!spot,role=web")
	if err != nil {
		t.Fatal(err)
	}
	for labels, want := range map[string]bool{
		"zone=a,gpu=1,role=web":         true,
		"zone=c,gpu=1,role=web":         false,
		"zone=b,gpu=1,role=web,tier=db": false,
		"zone=a,gpu=1,role=web,spot=1":  false,
		"zone=a,role=web":               false,
	} {
		m := map[string]string{}
		for _, kv := range strings.Split(labels, ",") {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
		if got := sel.Matches(m); got != want {
			t.Errorf("%s: %v, want %v", labels, got, want)
		}
	}
}
