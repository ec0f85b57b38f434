package config_test

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/config"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestLoadGolden loads every testdata/*.yaml and compares the effective
// configuration with testdata/*.json.
func TestLoadGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) == 0 {
		t.Fatal("no golden inputs")
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".yaml")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Load(data)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			got, err := json.MarshalIndent(cfg, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := strings.TrimSuffix(in, ".yaml") + ".json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("effective config of %s (-want +got):\n%s", in, diff)
			}
		})
	}
}

func TestDefaultMatchesEmptyDocument(t *testing.T) {
	loaded, err := config.Load([]byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(config.Default(), loaded); diff != "" {
		t.Errorf("Default() differs from an empty document (-default +loaded):\n%s", diff)
	}
}

// TestDefaultProfile pins kube 1.36's default plugins, order and weights,
// minus the plugins Berth leaves out, and the defaulted args.
func TestDefaultProfile(t *testing.T) {
	cfg := config.Default()
	if got := []any{cfg.Parallelism, cfg.PercentageOfNodesToScore, cfg.PodInitialBackoffSeconds, cfg.PodMaxBackoffSeconds}; !cmp.Equal(got, []any{int32(16), (*int32)(nil), int64(1), int64(10)}) {
		t.Errorf("globals = %v", got)
	}
	p, ok := cfg.Profile("default-scheduler")
	if !ok || len(cfg.Profiles) != 1 {
		t.Fatalf("profiles = %+v", cfg.Profiles)
	}
	want := []config.Plugin{
		{Name: "SchedulingGates"},
		{Name: "PrioritySort"},
		{Name: "NodeName"},
		{Name: "NodeUnschedulable"},
		{Name: "TaintToleration", Weight: 3},
		{Name: "NodeAffinity", Weight: 2},
		{Name: "NodePorts"},
		{Name: "NodeResourcesFit", Weight: 1},
		{Name: "VolumeRestrictions"},
		{Name: "NodeVolumeLimits"},
		{Name: "VolumeBinding"},
		{Name: "VolumeZone"},
		{Name: "PodTopologySpread", Weight: 2},
		{Name: "InterPodAffinity", Weight: 2},
		{Name: "DynamicResources", Weight: 2},
		{Name: "DefaultPreemption"},
		{Name: "NodeResourcesBalancedAllocation", Weight: 1},
		{Name: "ImageLocality", Weight: 1},
		{Name: "DefaultBinder"},
	}
	if diff := cmp.Diff(want, p.Plugins.MultiPoint.Enabled); diff != "" {
		t.Errorf("multiPoint (-want +got):\n%s", diff)
	}
	for _, point := range config.ExtensionPoints() {
		if s := p.Plugins.Set(point); len(s.Enabled)+len(s.Disabled) > 0 {
			t.Errorf("%v: %+v, want empty", point, *s)
		}
	}
	wantArgs := map[string]string{
		"DefaultPreemption":               `{"minCandidateNodesPercentage":10,"minCandidateNodesAbsolute":100}`,
		"DynamicResources":                `{"filterTimeout":"10s","bindingTimeout":"10m0s"}`,
		"InterPodAffinity":                `{"hardPodAffinityWeight":1,"ignorePreferredTermsOfExistingPods":false}`,
		"NodeAffinity":                    `{}`,
		"NodeResourcesBalancedAllocation": `{"resources":[{"name":"cpu","weight":1},{"name":"memory","weight":1}]}`,
		"NodeResourcesFit":                `{"scoringStrategy":{"type":"LeastAllocated","resources":[{"name":"cpu","weight":1},{"name":"memory","weight":1}]}}`,
		"PodTopologySpread":               `{"defaultingType":"System"}`,
		"VolumeBinding":                   `{"bindTimeoutSeconds":600,"shape":[{"utilization":0,"score":10},{"utilization":100,"score":0}]}`,
	}
	gotArgs := map[string]string{}
	var order []string
	for _, pc := range p.PluginConfig {
		gotArgs[pc.Name] = string(pc.Args)
		order = append(order, pc.Name)
	}
	if diff := cmp.Diff(wantArgs, gotArgs); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	wantOrder := []string{"DefaultPreemption", "DynamicResources", "InterPodAffinity", "NodeAffinity", "NodeResourcesBalancedAllocation", "NodeResourcesFit", "PodTopologySpread", "VolumeBinding"}
	if diff := cmp.Diff(wantOrder, order); diff != "" {
		t.Errorf("args order (-want +got):\n%s", diff)
	}
	if got := string(p.Args("NodeResourcesFit")); got != wantArgs["NodeResourcesFit"] {
		t.Errorf("Args(NodeResourcesFit) = %s", got)
	}
	if p.Args("PrioritySort") != nil {
		t.Errorf("Args(PrioritySort) = %s, want nil", p.Args("PrioritySort"))
	}
}

func TestLoadErrors(t *testing.T) {
	const head = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
	tests := []struct {
		name string
		doc  string
		opts []config.LoadOption
		kind error
		// want lists substrings of the error message, one per expected
		// problem.
		want []string
	}{
		{
			name: "unknown plugin enabled",
			doc:  head + "profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: NodeResourceFit\n",
			kind: config.ErrUnknownPlugin,
			want: []string{`profiles[0].plugins.filter.enabled[0]: unknown plugin: "NodeResourceFit"`},
		},
		{
			name: "unknown plugin disabled",
			doc:  head + "profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: Nope\n",
			kind: config.ErrUnknownPlugin,
			want: []string{`profiles[0].plugins.multiPoint.disabled[0]: unknown plugin: "Nope"`},
		},
		{
			name: "PodTopologySpread defaultingType unknown",
			doc:  head + "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args: {defaultingType: Libt}\n",
			kind: config.ErrInvalid,
			want: []string{`profiles[0].pluginConfig[0].args.defaultingType: invalid value: unsupported value "Libt": supported values: "System", "List"`},
		},
		{
			name: "PodTopologySpread System defaulting with constraints",
			doc:  head + "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args: {defaultingType: System, defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]}\n",
			kind: config.ErrInvalid,
			want: []string{`args.defaultingType: invalid value: "System": invalid when .defaultConstraints are not empty`},
		},
		{
			name: "unknown plugin in pluginConfig",
			doc:  head + "profiles:\n- pluginConfig:\n  - name: Nope\n    args: {}\n",
			kind: config.ErrUnknownPlugin,
			want: []string{`profiles[0].pluginConfig[0].name: unknown plugin: "Nope"`},
		},
		{
			name: "extra plugin accepted with WithPlugins",
			doc:  head + "profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: Custom\n  pluginConfig:\n  - name: Custom\n    args: {x: 1}\n",
			opts: []config.LoadOption{config.WithPlugins("Custom")},
		},
		{
			name: "kube-only plugin enabled",
			doc:  head + "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: NodeDeclaredFeatures\n",
			kind: config.ErrNotImplemented,
			want: []string{`profiles[0].plugins.multiPoint.enabled[0]: not implemented by Berth: plugin "NodeDeclaredFeatures": it matches the features a kubelet declares`},
		},
		{
			name: "negative weight",
			doc:  head + "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: NodeAffinity\n        weight: -2\n",
			kind: config.ErrInvalid,
			want: []string{`profiles[0].plugins.score.enabled[0].weight: invalid value: -2`},
		},
		{
			name: "weight not a number",
			doc:  head + "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: NodeAffinity\n        weight: heavy\n",
			kind: config.ErrDecode,
			want: []string{`weight`},
		},
		{
			name: "duplicate profile",
			doc:  head + "profiles:\n- schedulerName: a\n- schedulerName: b\n- schedulerName: a\n",
			kind: config.ErrDuplicate,
			want: []string{`profiles[2].schedulerName: duplicate value: "a" is the name of profiles[0] already`},
		},
		{
			name: "unnamed profile among several",
			doc:  head + "profiles:\n- schedulerName: a\n- percentageOfNodesToScore: 10\n",
			kind: config.ErrRequired,
			want: []string{`profiles[1].schedulerName: required value`},
		},
		{
			name: "bad global percentage",
			doc:  head + "percentageOfNodesToScore: 101\n",
			kind: config.ErrInvalid,
			want: []string{`percentageOfNodesToScore: invalid value: 101: not in valid range [0-100]`},
		},
		{
			name: "bad profile percentage",
			doc:  head + "profiles:\n- percentageOfNodesToScore: -1\n",
			kind: config.ErrInvalid,
			want: []string{`profiles[0].percentageOfNodesToScore: invalid value: -1`},
		},
		{
			name: "unknown top-level field",
			doc:  head + "parallelizm: 3\n",
			kind: config.ErrDecode,
			want: []string{`unknown field "parallelizm"`},
		},
		{
			name: "unknown nested field",
			doc:  head + "profiles:\n- schedulerName: a\n  plugin: {}\n",
			kind: config.ErrDecode,
			want: []string{`unknown field "profiles[0].plugin"`},
		},
		{
			name: "field names are case-sensitive",
			doc:  head + "Parallelism: 3\n",
			kind: config.ErrDecode,
			want: []string{`unknown field "Parallelism"`},
		},
		{
			name: "duplicate field",
			doc:  head + "parallelism: 3\nparallelism: 4\n",
			kind: config.ErrDecode,
			want: []string{`parallelism`},
		},
		{
			name: "unknown field in args",
			doc:  head + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        typ: MostAllocated\n",
			kind: config.ErrDecode,
			want: []string{`profiles[0].pluginConfig[0].args.scoringStrategy.typ: `, `unknown field "scoringStrategy.typ"`},
		},
		{
			name: "args of the wrong kind",
			doc:  head + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      kind: InterPodAffinityArgs\n",
			kind: config.ErrDecode,
			want: []string{`args for plugin NodeResourcesFit were not of type NodeResourcesFitArgs, got InterPodAffinityArgs`},
		},
		{
			name: "duplicate pluginConfig",
			doc:  head + "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n  - name: NodeAffinity\n",
			kind: config.ErrDuplicate,
			want: []string{`profiles[0].pluginConfig[1].name: duplicate value`},
		},
		{
			name: "wrong apiVersion",
			doc:  "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
			kind: config.ErrDecode,
			want: []string{`apiVersion: invalid KubeSchedulerConfiguration document: "kubescheduler.config.k8s.io/v1beta3": Berth reads kubescheduler.config.k8s.io/v1 only`},
		},
		{
			name: "wrong kind",
			doc:  "apiVersion: kubescheduler.config.k8s.io/v1\nkind: Pod\n",
			kind: config.ErrDecode,
			want: []string{`kind: invalid KubeSchedulerConfiguration document: "Pod"`},
		},
		{
			name: "empty document",
			doc:  "",
			kind: config.ErrDecode,
			want: []string{"empty document"},
		},
		{
			name: "backoff bounds",
			doc:  head + "podInitialBackoffSeconds: 0\npodMaxBackoffSeconds: -1\n",
			kind: config.ErrInvalid,
			want: []string{"podInitialBackoffSeconds: invalid value: 0", "podMaxBackoffSeconds: invalid value: -1"},
		},
		{
			name: "parallelism",
			doc:  head + "parallelism: 0\n",
			kind: config.ErrInvalid,
			want: []string{"parallelism: invalid value: 0"},
		},
		{
			name: "queue sort differs between profiles",
			doc: head + `profiles:
- schedulerName: a
- schedulerName: b
  plugins:
    queueSort:
      enabled:
      - name: PrioritySort
`,
			kind: config.ErrInvalid,
			want: []string{"profiles[1].plugins.queueSort: invalid value: must be the same for all profiles"},
		},
		{
			name: "extenders",
			doc:  head + "extenders:\n- urlPrefix: http://x\n",
			kind: config.ErrNotImplemented,
			want: []string{"extenders: not implemented by Berth"},
		},
		{
			name: "every problem is reported",
			doc:  head + "profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: A\n      - name: B\n",
			kind: config.ErrUnknownPlugin,
			want: []string{`enabled[0]: unknown plugin: "A"`, `enabled[1]: unknown plugin: "B"`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Load([]byte(tc.doc), tc.opts...)
			if tc.kind == nil {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Load succeeded (%+v), want an error", cfg)
			}
			if !errors.Is(err, tc.kind) {
				t.Errorf("error %q is not %v", err, tc.kind)
			}
			var fe *config.FieldError
			if !errors.As(err, &fe) {
				t.Errorf("error %q holds no *FieldError", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n  %s\ndoes not contain\n  %s", err, w)
				}
			}
		})
	}
}

func TestLoadJSON(t *testing.T) {
	cfg, err := config.Load([]byte(`{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration","parallelism":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Parallelism != 2 {
		t.Errorf("parallelism = %d, want 2", cfg.Parallelism)
	}
}

func TestProfileLookup(t *testing.T) {
	cfg, err := config.Load([]byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: a\n- schedulerName: b\n  percentageOfNodesToScore: 30\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		ok      bool
		percent *int32
	}{
		{name: "a", ok: true},
		{name: "b", ok: true, percent: ptr[int32](30)},
		{name: "default-scheduler", ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := cfg.Profile(tc.name)
			if ok != tc.ok {
				t.Fatalf("Profile(%q) ok = %v, want %v", tc.name, ok, tc.ok)
			}
			if ok && !cmp.Equal(p.PercentageOfNodesToScore, tc.percent) {
				t.Errorf("percentage = %v, want %v", p.PercentageOfNodesToScore, tc.percent)
			}
		})
	}
}

func TestValidateBuiltConfig(t *testing.T) {
	cfg := config.Default()
	cfg.Parallelism = -1
	cfg.Profiles = append(cfg.Profiles, cfg.Profiles[0])
	err := config.Validate(cfg)
	for _, w := range []string{"parallelism: invalid value", `profiles[1].schedulerName: duplicate value`} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("Validate = %v, want it to contain %q", err, w)
		}
	}
	if err := config.Validate(config.Default()); err != nil {
		t.Errorf("Validate(Default()) = %v", err)
	}
}

func TestBackoffDurations(t *testing.T) {
	cfg := config.Default()
	if got := []any{cfg.PodInitialBackoff().String(), cfg.PodMaxBackoff().String()}; !cmp.Equal(got, []any{"1s", "10s"}) {
		t.Errorf("backoff = %v", got)
	}
}

func ptr[T any](v T) *T { return &v }

// An explicit global percentageOfNodesToScore, 0 included, stays apart
// from an unset one: the simulator defaults only the unset one to 100.
func TestGlobalPercentageSetOrNot(t *testing.T) {
	head := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
	for _, tc := range []struct {
		name string
		doc  string
		want *int32
	}{
		{"unset", head, nil},
		{"explicit 0", head + "percentageOfNodesToScore: 0\n", new(int32(0))},
		{"explicit 40", head + "percentageOfNodesToScore: 40\n", new(int32(40))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Load([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, cfg.PercentageOfNodesToScore); diff != "" {
				t.Errorf("percentage (-want +got):\n%s", diff)
			}
		})
	}
}
