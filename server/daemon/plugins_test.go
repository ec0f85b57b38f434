package daemon

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/model"
)

// onlyNode is a Filter plugin from outside the tree: it passes one node.
type onlyNode struct{ node string }

func (*onlyNode) Name() string { return "OnlyNode" }

func (p *onlyNode) Filter(_ context.Context, _ *framework.CycleState, _ *model.Pod, ni *framework.NodeInfo) *framework.Status {
	if ni.Name() != p.node {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, "not the node OnlyNode wants")
	}
	return nil
}

func onlyNodeFactory(node string) framework.PluginFactory {
	return func(context.Context, json.RawMessage, framework.Handle) (framework.Plugin, error) {
		return &onlyNode{node: node}, nil
	}
}

// Config.Plugins join the in-tree registry: a profile enabling one runs it.
func TestConfigPluginsRun(t *testing.T) {
	cfg, err := config.Load([]byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    filter:
      enabled: [{name: OnlyNode}]
`), config.WithPlugins("OnlyNode"))
	if err != nil {
		t.Fatal(err)
	}
	e := start(t, Config{DataDir: t.TempDir(), Deterministic: true, Scheduler: cfg,
		Plugins: runtime.Registry{"OnlyNode": onlyNodeFactory("n3")}})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	for _, n := range []string{"n1", "n2", "n3"} {
		e.apply(t, nodeObj(n, nodeCPU))
	}
	e.apply(t, podObj(podWire("p1", podCPU)))
	ds := w.waitFor(t, "p1 bound", func(ds []*berthv1.Decision) bool { return binds(ds)["p1"] != "" })
	if got := binds(ds)["p1"]; got != "n3" {
		t.Errorf("p1 bound to %s, want n3, the only node OnlyNode passes", got)
	}
}

// A plugin named as an in-tree one fails Open, leaving the data directory
// free.
func TestConfigPluginsDuplicate(t *testing.T) {
	dir := t.TempDir()
	_, err := Open(t.Context(), Config{DataDir: dir, Plugins: runtime.Registry{"NodeName": onlyNodeFactory("n1")}})
	if err == nil || !strings.Contains(err.Error(), `a plugin named "NodeName" is registered already`) {
		t.Fatalf("Open = %v, want the duplicate named", err)
	}
	d, err := Open(t.Context(), Config{DataDir: dir})
	if err != nil {
		t.Fatalf("Open after the refusal: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}
