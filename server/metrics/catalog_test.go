package metrics

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository's root, from this package's directory.
const root = "../.."

// Every metric berthd's code defines is in docs/metrics.md's table, and
// the monitoring that ships (deploy/monitoring: rules, the dashboard) uses
// only metrics berthd defines or its recording rules make.
func TestMetricCatalog(t *testing.T) {
	defined := definedMetrics(t)
	if len(defined) < 20 {
		t.Fatalf("found %d metric definitions in the code, want the whole catalog: is the pattern stale?", len(defined))
	}
	doc := read(t, "docs/metrics.md")
	for name := range defined {
		if !strings.Contains(doc, "`"+name+"`") {
			t.Errorf("docs/metrics.md does not list %s", name)
		}
	}

	recorded := map[string]bool{}
	rules := read(t, "deploy/monitoring/recording-rules.yml")
	for _, m := range regexp.MustCompile(`(?m)^\s*- record: (\S+)`).FindAllStringSubmatch(rules, -1) {
		recorded[m[1]] = true
	}
	// Series names in queries: berth's, kube's and gRPC's namespaces, then
	// histogram suffixes; Prometheus' own "up".
	used := regexp.MustCompile(`\b(?:berth|scheduler|grpc_server|leader_election)_[a-z0-9_]+|\bberth:[a-z0-9_:]+`)
	for _, file := range []string{"deploy/monitoring/recording-rules.yml", "deploy/monitoring/alerts.yml", "deploy/monitoring/grafana-dashboard.json"} {
		for _, name := range used.FindAllString(read(t, file), -1) {
			base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
			if !defined[name] && !defined[base] && !recorded[name] {
				t.Errorf("%s uses %s, which berthd does not define", file, name)
			}
		}
	}
}

// definedMetrics are the metric names in the code: the Name of prometheus
// options and NewDesc's first argument, in non-test Go files of server,
// core and store, and go-grpc-prometheus' server metrics.
func definedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{
		"grpc_server_started_total": true, "grpc_server_handled_total": true,
		"grpc_server_msg_received_total": true, "grpc_server_msg_sent_total": true,
		"grpc_server_handling_seconds": true,
	}
	pattern := regexp.MustCompile(`(?:\bName:\s*|NewDesc\()"([a-z][a-z0-9]*_[a-z0-9_]+)"`)
	for _, dir := range []string{"server", "core", "store"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if !strings.Contains(string(b), "prometheus") {
				return nil
			}
			for _, m := range pattern.FindAllStringSubmatch(string(b), -1) {
				out[m[1]] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
