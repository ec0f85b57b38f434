package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	update     = flag.Bool("update", false, "regenerate testdata/simulate/*.oracle.jsonl with kubeoracle")
	oraclePath = flag.String("oracle", "/tmp/kubeoracle", "kubeoracle binary used by -update")
)

// result is one run of berthctl.
type result struct {
	code           int
	stdout, stderr string
}

// berthctl runs the command in-process.
func berthctl(t *testing.T, a *app, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	if a == nil {
		a = &app{}
	}
	a.streams = streams{in: strings.NewReader(stdin), out: &out, err: &errOut}
	code := a.run(context.Background(), args, func(string) string { return "" })
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// TestSimulateGolden compares berthctl simulate with the real
// kube-scheduler's trace (kubeoracle place) line for line. A case is
// NAME.yaml with NAME.oracle.jsonl, the oracle's trace, and optionally
// NAME.config.yaml (--config), NAME.stderr (what berthctl must say on
// standard error; nothing when absent) and NAME.expanded.yaml: the same
// cluster with its workloads written out as the pods their controllers
// create, which the oracle (running no controllers) is given instead, and
// on which berthctl must print the same trace as on NAME.yaml.
func TestSimulateGolden(t *testing.T) {
	clusters, err := filepath.Glob(filepath.Join("testdata", "simulate", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	clusters = slices.DeleteFunc(clusters, func(f string) bool {
		return strings.HasSuffix(f, ".config.yaml") || strings.HasSuffix(f, ".expanded.yaml")
	})
	if len(clusters) == 0 {
		t.Fatal("no golden cases")
	}
	for _, cluster := range clusters {
		base := strings.TrimSuffix(cluster, ".yaml")
		t.Run(filepath.Base(base), func(t *testing.T) {
			var flags []string
			if _, err := os.Stat(base + ".config.yaml"); err == nil {
				flags = append(flags, "--config", base+".config.yaml")
			}
			oracleInput := cluster
			expanded := base + ".expanded.yaml"
			if _, err := os.Stat(expanded); err == nil {
				oracleInput = expanded
			} else {
				expanded = ""
			}
			golden := base + ".oracle.jsonl"
			if *update {
				out, err := exec.Command(*oraclePath, append([]string{"place", "-f", oracleInput}, flags...)...).Output()
				if err != nil {
					t.Fatalf("kubeoracle: %v", err)
				}
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			wantErr := ""
			if b, err := os.ReadFile(base + ".stderr"); err == nil {
				wantErr = string(b)
			}
			got := berthctl(t, nil, "", append([]string{"simulate", "-f", cluster}, flags...)...)
			if got.code != exitOK || got.stderr != wantErr {
				t.Fatalf("exit %d, stderr %q, want %q", got.code, got.stderr, wantErr)
			}
			if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(got.stdout, "\n")); diff != "" {
				t.Errorf("trace (-oracle +berthctl):\n%s", diff)
			}
			if expanded != "" {
				again := berthctl(t, nil, "", append([]string{"simulate", "-f", expanded}, flags...)...)
				if again.code != exitOK {
					t.Fatalf("%s: exit %d, stderr %q", expanded, again.code, again.stderr)
				}
				if diff := cmp.Diff(got.stdout, again.stdout); diff != "" {
					t.Errorf("the workloads and the pods written out give different traces (-workloads +pods):\n%s", diff)
				}
			}
		})
	}
}

func TestSimulateInputs(t *testing.T) {
	dir := filepath.Join("testdata", "simulate")
	cluster, err := os.ReadFile(filepath.Join(dir, "scheduling-gates.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := readString(t, filepath.Join(dir, "scheduling-gates.oracle.jsonl"))
	t.Run("stdin", func(t *testing.T) {
		got := berthctl(t, nil, string(cluster), "simulate", "-f", "-")
		if got.code != exitOK || got.stdout != want {
			t.Errorf("exit %d stderr %q\n got %s\nwant %s", got.code, got.stderr, got.stdout, want)
		}
	})
	t.Run("directory", func(t *testing.T) {
		d := t.TempDir()
		writeFile(t, filepath.Join(d, "a.yaml"), strings.SplitN(string(cluster), "\n---\n", 2)[0])
		writeFile(t, filepath.Join(d, "b.yml"), strings.SplitN(string(cluster), "\n---\n", 2)[1])
		writeFile(t, filepath.Join(d, "notes.txt"), "not a manifest")
		got := berthctl(t, nil, "", "simulate", "-f", d)
		if got.code != exitOK || got.stdout != want {
			t.Errorf("exit %d stderr %q\n got %s\nwant %s", got.code, got.stderr, got.stdout, want)
		}
	})
	t.Run("stdin and a file", func(t *testing.T) {
		d := t.TempDir()
		writeFile(t, filepath.Join(d, "bad.yaml"), "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: c}]}\n")
		got := berthctl(t, nil, "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: lots}}\n", "simulate", "-f", filepath.Join(d, "bad.yaml"), "-f", "-")
		if got.code != exitFailed || !strings.Contains(got.stderr, "<stdin>: document 1 (Node n1): ") {
			t.Errorf("exit %d stderr %q: want exit 1 naming <stdin> and the document", got.code, got.stderr)
		}
	})
	t.Run("text", func(t *testing.T) {
		got := berthctl(t, nil, "", "simulate", "-f", filepath.Join(dir, "preemption-pdb.yaml"), "-o", "text")
		for _, s := range []string{"POD", "default/high-1      nominated      n2", "victims default/low-a3,default/low-b1", "default/orphan", "\n\n" + preemptionAssumption + "\n"} {
			if !strings.Contains(got.stdout, s) {
				t.Errorf("text output lacks %q:\n%s", s, got.stdout)
			}
		}
		// Without a preemption there is nothing to assume.
		got = berthctl(t, nil, "", "simulate", "-f", filepath.Join(dir, "resource-fit.yaml"), "-o", "text")
		if got.code != exitOK || strings.Contains(got.stdout, "Assumed") {
			t.Errorf("text output without a preemption: %+v", got)
		}
	})
}

func TestSimulateErrors(t *testing.T) {
	d := t.TempDir()
	unknownKind := filepath.Join(d, "kind.yaml")
	writeFile(t, unknownKind, "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n")
	badQuantity := filepath.Join(d, "qty.yaml")
	writeFile(t, badQuantity, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: two}}\n")
	badConfig := filepath.Join(d, "config.yaml")
	empty := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no -f", []string{"simulate"}, exitUsage, "-f/--filename is required"},
		{"bad output", []string{"simulate", "-f", unknownKind, "-o", "yaml"}, exitUsage, "--output must be one of"},
		{"unknown flag", []string{"simulate", "--nodes", "3"}, exitUsage, "unknown flag: --nodes"},
		{"extra argument", []string{"simulate", "-f", unknownKind, "extra"}, exitUsage, "takes no arguments"},
		{"stdin twice", []string{"simulate", "-f", "-", "-f", "-"}, exitUsage, "-f - (standard input) may be given once"},
		{"missing file", []string{"simulate", "-f", filepath.Join(d, "nope.yaml")}, exitFailed, "nope.yaml: no such file"},
		{"empty directory", []string{"simulate", "-f", empty}, exitFailed, "holds no .yaml"},
		{"unknown kind", []string{"simulate", "-f", unknownKind}, exitFailed, "kind.yaml: document 2 (Widget default/w): kind: unknown kind"},
		{"bad quantity", []string{"simulate", "-f", badQuantity}, exitFailed, `qty.yaml: document 1 (Pod default/p): spec.containers[0].resources.requests[cpu]: invalid quantity "two": quantities must match`},
		{"missing file named", []string{"simulate", "-f", badQuantity + "x", "--config", badConfig}, exitFailed, "qty.yamlx"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := berthctl(t, nil, "", tc.args...)
			if got.code != tc.code || !strings.Contains(got.stderr, tc.want) || !strings.HasPrefix(got.stderr, "berthctl: ") {
				t.Errorf("exit %d, stderr %q; want exit %d and a message containing %q", got.code, got.stderr, tc.code, tc.want)
			}
			if got.stdout != "" {
				t.Errorf("stdout %q, want nothing", got.stdout)
			}
		})
	}
}

func TestSimulateConfigErrorNamesConfig(t *testing.T) {
	d := t.TempDir()
	cluster := filepath.Join(d, "c.yaml")
	writeFile(t, cluster, "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: 1, pods: 10}}\n")
	cfg := filepath.Join(d, "cfg.yaml")
	writeFile(t, cfg, "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- plugins: {score: {enabled: [{name: NoSuchPlugin}]}}\n")
	got := berthctl(t, nil, "", "simulate", "-f", cluster, "--config", cfg)
	if got.code != exitFailed || !strings.Contains(got.stderr, "--config "+cfg) || !strings.Contains(got.stderr, "NoSuchPlugin") {
		t.Errorf("exit %d stderr %q", got.code, got.stderr)
	}
}

// TestSimulateManifestErrors: every manifest problem names the file, the
// document and, where there is one, the field.
func TestSimulateManifestErrors(t *testing.T) {
	const node = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: \"4\", pods: \"10\"}}\n---\n"
	const ksc = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
	deploy := func(spec string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n" + spec +
			"  template:\n    metadata: {labels: {app: d}}\n    spec: {containers: [{name: c}]}\n"
	}
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"missing apiVersion", node + "kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n",
			"m.yaml: document 2 (Pod default/p): apiVersion: missing (a Pod needs one, for example v1)"},
		{"quantity of a container", node + "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a}, {name: b, resources: {limits: {memory: 1Q}}}]}\n",
			`m.yaml: document 2 (Pod default/p): spec.containers[1].resources.limits[memory]: invalid quantity "1Q"`},
		{"quantity of a node", "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: lots}}\n",
			`m.yaml: document 1 (Node n1): status.capacity[cpu]: invalid quantity "lots"`},
		{"quantity of an overhead", node + "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {overhead: {cpu: x}, containers: [{name: c}]}\n",
			`(Pod default/p): spec.overhead[cpu]: invalid quantity "x"`},
		{"quantity of a List item", node + "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n2}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: lp}\n  spec: {containers: [{name: c, resources: {requests: {cpu: abc}}}]}\n",
			`m.yaml: document 2 (Pod default/lp): items[1].spec.containers[0].resources.requests[cpu]: invalid quantity "abc"`},
		{"List item without apiVersion", "apiVersion: v1\nkind: List\nitems:\n- kind: Node\n  metadata: {name: n2}\n",
			"m.yaml: document 1 (Node n2): items[0].apiVersion: missing"},
		{"quantity of a Deployment's template", node + "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {app: d}}\n  template:\n    metadata: {labels: {app: d}}\n    spec: {containers: [{name: c, resources: {requests: {memory: 12Q}}}]}\n",
			`m.yaml: document 2 (Deployment default/d): spec.template.spec.containers[0].resources.requests[memory]: invalid quantity "12Q"`},
		{"pod without containers", node + "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {}\n",
			"m.yaml: document 2 (Pod default/p): spec.containers: at least one container is required"},
		{"bad label key in a selector", node + "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b}\nspec: {minAvailable: 1, selector: {matchLabels: {\"bad key\": x}}}\n",
			`m.yaml: document 2 (PodDisruptionBudget default/b): spec.selector.matchLabels[bad key]: invalid label key "bad key"`},
		{"bad label value in an expression", node + "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c}]\n  topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchExpressions: [{key: app, operator: In, values: [\"a b\"]}]}}]\n",
			`spec.topologySpreadConstraints[0].labelSelector.matchExpressions[0].values[0]: invalid label value "a b"`},
		{"bad pod label", node + "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {\"-x\": v}}\nspec: {containers: [{name: c}]}\n",
			`m.yaml: document 2 (Pod default/p): metadata.labels[-x]: invalid label key "-x"`},
		{"selector not matching the template", node + deploy("  selector: {matchLabels: {app: other}}\n"),
			"m.yaml: document 2 (Deployment default/d): spec.template.metadata.labels: `selector` does not match template `labels`"},
		{"no selector", node + deploy(""),
			"m.yaml: document 2 (Deployment default/d): spec.selector: required"},
		{"negative replicas", node + deploy("  replicas: -1\n  selector: {matchLabels: {app: d}}\n"),
			"m.yaml: document 2 (Deployment default/d): spec.replicas: must be greater than or equal to 0, got -1"},
		{"Indexed Job without completions", node + "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  completionMode: Indexed\n  template: {spec: {restartPolicy: Never, containers: [{name: c}]}}\n",
			"m.yaml: document 2 (Job default/j): spec.completions: required when completionMode is Indexed"},
		{"KubeSchedulerConfiguration that does not load", node + ksc + "profilez: []\n",
			`m.yaml: document 2 (KubeSchedulerConfiguration): profilez: invalid KubeSchedulerConfiguration document: unknown field "profilez"`},
		{"KubeSchedulerConfiguration with invalid plugin args", node + ksc + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {type: Bogus}}\n",
			`m.yaml: document 2 (KubeSchedulerConfiguration): scheduler: profile "default-scheduler": initializing plugin "NodeResourcesFit": NodeResourcesFit args: scoringStrategy.type: unsupported value "Bogus"`},
		{"two KubeSchedulerConfigurations", ksc + "---\n" + node + ksc,
			"FILE: document 3 (KubeSchedulerConfiguration): a second KubeSchedulerConfiguration (the first is FILE: document 1): give one, or pass --config"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "m.yaml")
			writeFile(t, file, tc.doc)
			got := berthctl(t, nil, "", "simulate", "-f", file)
			want := strings.ReplaceAll(tc.want, "FILE", file)
			if got.code != exitFailed || !strings.Contains(got.stderr, want) {
				t.Errorf("exit %d, stderr %q; want exit 1 and a message containing %q", got.code, got.stderr, want)
			}
		})
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
