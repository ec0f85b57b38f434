package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
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

// oracleOnly removes from kubeoracle's trace what only Kubernetes has:
// the DynamicResources and ImageLocality plugins (0 on these clusters)
// and the resource-claim fragment of unschedulable messages. Everything
// else, key order included, must be identical.
func oracleOnly(trace string) string {
	r := strings.NewReplacer(
		`"DynamicResources":0,`, "",
		`"ImageLocality":0,`, "",
		`,"ImageLocality":0`, "",
		"no new claims to deallocate, ", "",
	)
	return r.Replace(trace)
}

// TestSimulateGolden compares berthctl simulate with the real
// kube-scheduler's trace (kubeoracle place) line for line.
func TestSimulateGolden(t *testing.T) {
	goldens, err := filepath.Glob(filepath.Join("testdata", "simulate", "*.oracle.jsonl"))
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no golden traces: %v", err)
	}
	for _, golden := range goldens {
		base := strings.TrimSuffix(golden, ".oracle.jsonl")
		t.Run(filepath.Base(base), func(t *testing.T) {
			args := []string{"-f", base + ".yaml"}
			if _, err := os.Stat(base + ".config.yaml"); err == nil {
				args = append(args, "--config", base+".config.yaml")
			}
			if *update {
				out, err := exec.Command(*oraclePath, append([]string{"place"}, args...)...).Output()
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
			got := berthctl(t, nil, "", append([]string{"simulate"}, args...)...)
			if got.code != exitOK || got.stderr != "" {
				t.Fatalf("exit %d, stderr %q", got.code, got.stderr)
			}
			if diff := cmp.Diff(strings.Split(oracleOnly(string(want)), "\n"), strings.Split(got.stdout, "\n")); diff != "" {
				t.Errorf("trace (-oracle +berthctl):\n%s", diff)
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
	want := oracleOnly(readString(t, filepath.Join(dir, "scheduling-gates.oracle.jsonl")))
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
		for _, s := range []string{"POD", "default/high-1      nominated      n2", "victims default/low-a3,default/low-b1", "default/orphan"} {
			if !strings.Contains(got.stdout, s) {
				t.Errorf("text output lacks %q:\n%s", s, got.stdout)
			}
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
		// core/manifest does not name the field of a quantity the decoder rejects.
		{"bad quantity", []string{"simulate", "-f", badQuantity}, exitFailed, "qty.yaml: document 1 (Pod default/p): quantities must match"},
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
