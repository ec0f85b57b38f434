package runtime_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/model"
)

func TestNewProfiles(t *testing.T) {
	const head = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
	tests := []struct {
		name    string
		doc     string
		want    []string
		wantErr string
	}{
		{
			name: "default",
			doc:  head,
			want: []string{"default-scheduler"},
		},
		{
			name: "two profiles",
			doc:  head + "parallelism: 2\nprofiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    multiPoint:\n      disabled:\n      - name: PodTopologySpread\n",
			want: []string{"a", "b"},
		},
		{
			name: "queue sort differs after multiPoint expansion",
			doc: head + `profiles:
- schedulerName: a
- schedulerName: b
  plugins:
    multiPoint:
      enabled:
      - name: OtherSort
      disabled:
      - name: PrioritySort
`,
			wantErr: `different queue sort plugins for profile "b": "OtherSort", first: "PrioritySort"`,
		},
		{
			name:    "queue sort args differ",
			doc:     head + "profiles:\n- schedulerName: a\n  pluginConfig:\n  - name: PrioritySort\n    args: {x: 1}\n- schedulerName: b\n",
			wantErr: `different queue sort plugin args for profile "b"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Load([]byte(tc.doc), config.WithPlugins("OtherSort"))
			if err != nil {
				t.Fatal(err)
			}
			tp := defaultLikePlugins()
			tp.add("OtherSort", sortKind)
			ps, err := runtime.NewProfiles(context.Background(), tp.reg, cfg)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("NewProfiles error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for name, f := range ps {
				got = append(got, name)
				if f.ProfileName() != name {
					t.Errorf("profile %q serves %q", name, f.ProfileName())
				}
				if f.Parallelizer().Parallelism != int(cfg.Parallelism) {
					t.Errorf("parallelism = %d, want %d", f.Parallelizer().Parallelism, cfg.Parallelism)
				}
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("profiles (-want +got):\n%s", diff)
			}
			if ps.QueueSortFunc() == nil {
				t.Error("no queue sort func")
			}
		})
	}
}

func TestNewProfilesShareWaitingPods(t *testing.T) {
	cfg, err := config.Load([]byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: a\n  plugins:\n    permit:\n      enabled:\n      - name: Waiter\n- schedulerName: b\n"), config.WithPlugins("Waiter"))
	if err != nil {
		t.Fatal(err)
	}
	tp := defaultLikePlugins()
	tp.add("Waiter", reservePermitKind).permit = func() (*framework.Status, time.Duration) {
		return framework.NewStatus(framework.Wait), time.Minute
	}
	ps, err := runtime.NewProfiles(context.Background(), tp.reg, cfg, runtime.WithClock(newFakeClock()))
	if err != nil {
		t.Fatal(err)
	}
	pod := podNamed("p")
	ps["a"].RunPermitPlugins(context.Background(), framework.NewCycleState(), pod, "n1")
	if ps["b"].GetWaitingPod(pod.UID) == nil {
		t.Error("profile b does not see the pod waiting in profile a")
	}
}

// recordingMetrics records what the framework reports.
type recordingMetrics struct {
	mu     sync.Mutex
	points []string
	plugin []string
	waits  []string
}

func (m *recordingMetrics) ObserveExtensionPoint(profile, point string, code framework.Code, _ time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.points = append(m.points, profile+" "+point+" "+code.String())
}

func (m *recordingMetrics) ObservePlugin(profile, point, plugin string, code framework.Code, _ time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.plugin = append(m.plugin, point+" "+plugin+" "+code.String())
}

func (m *recordingMetrics) ObservePermitWait(profile string, code framework.Code, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.waits = append(m.waits, code.String()+" "+d.String())
}

func TestMetrics(t *testing.T) {
	tp := newTestPlugins()
	tp.add("Sort", sortKind)
	all := tp.add("All", allKind)
	all.permit = func() (*framework.Status, time.Duration) { return framework.NewStatus(framework.Wait), time.Minute }
	all.preFilter = func(*framework.CycleState, *model.Pod) (*framework.PreFilterResult, *framework.Status) {
		return nil, framework.NewStatus(framework.Skip)
	}
	p := profile(nil)
	p.Plugins.Bind.Enabled = plugins("All")
	for _, point := range []config.ExtensionPoint{config.PreFilter, config.Filter, config.PostFilter, config.PreScore, config.Score, config.Reserve, config.Permit, config.PreBind, config.PostBind} {
		p.Plugins.Set(point).Enabled = plugins("All")
	}
	m := &recordingMetrics{}
	clock := newFakeClock()
	f := mustNew(t, tp, p, runtime.WithMetrics(m), runtime.WithClock(clock))
	ctx, state, pod, nodes := context.Background(), framework.NewCycleState(), podNamed("p"), nodeInfos("n1")
	f.RunPreFilterPlugins(ctx, state, pod, nodes)
	f.RunFilterPlugins(ctx, state, pod, nodes[0])
	f.RunPostFilterPlugins(ctx, state, pod, framework.NewNodeToStatus())
	f.RunPreScorePlugins(ctx, state, pod, nodes)
	f.RunScorePlugins(ctx, state, pod, nodes)
	f.RunReservePluginsReserve(ctx, state, pod, "n1")
	f.RunPermitPlugins(ctx, state, pod, "n1")
	f.GetWaitingPod(pod.UID).Allow("All")
	f.WaitOnPermit(ctx, pod)
	f.RunPreBindPlugins(ctx, state, pod, "n1")
	f.RunBindPlugins(ctx, state, pod, "n1")
	f.RunPostBindPlugins(ctx, state, pod, "n1")
	f.RunReservePluginsUnreserve(ctx, state, pod, "n1")
	wantPoints := []string{
		"test PreFilter Success", "test PostFilter Success", "test PreScore Success", "test Score Success",
		"test Reserve Success", "test Permit Wait", "test PreBind Success", "test Bind Success",
		"test PostBind Success", "test Unreserve Success",
	}
	if diff := cmp.Diff(wantPoints, m.points); diff != "" {
		t.Errorf("extension points (-want +got):\n%s", diff)
	}
	wantPlugins := []string{
		"PreFilter All Skip", "PostFilter All Success", "PreScore All Success", "Reserve All Success",
		"Permit All Wait", "PreBind All Success", "Bind All Success", "PostBind All Success", "Unreserve All Success",
	}
	if diff := cmp.Diff(wantPlugins, m.plugin); diff != "" {
		t.Errorf("plugins (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Success 0s"}, m.waits); diff != "" {
		t.Errorf("permit waits (-want +got):\n%s", diff)
	}
}

func TestSnapshotRef(t *testing.T) {
	var ref runtime.SnapshotRef
	if ref.NumNodes() != 0 || ref.List() != nil || ref.Current() != nil {
		t.Error("an empty ref lists nodes")
	}
	if _, err := ref.Get("n1"); err != runtime.ErrNoSnapshot {
		t.Errorf("Get = %v, want ErrNoSnapshot", err)
	}
	ref.Set(listOf(nodeInfos("n1", "n2")))
	if ref.NumNodes() != 2 || len(ref.List()) != 2 {
		t.Errorf("NumNodes = %d", ref.NumNodes())
	}
	if ni, err := ref.Get("n2"); err != nil || ni.Name() != "n2" {
		t.Errorf("Get(n2) = %v, %v", ni, err)
	}
	ref.Set(listOf(nodeInfos("n3")))
	if got := ref.List()[0].Name(); got != "n3" || len(ref.HavePodsWithAffinityList()) != 0 || len(ref.HavePodsWithRequiredAntiAffinityList()) != 0 {
		t.Errorf("after a second Set, List()[0] = %s", got)
	}
}

// listOf is a minimal NodeInfoLister.
type listOf []*framework.NodeInfo

func (l listOf) List() []*framework.NodeInfo                                 { return l }
func (l listOf) HavePodsWithAffinityList() []*framework.NodeInfo             { return nil }
func (l listOf) HavePodsWithRequiredAntiAffinityList() []*framework.NodeInfo { return nil }
func (l listOf) NumNodes() int                                               { return len(l) }
func (l listOf) Get(name string) (*framework.NodeInfo, error) {
	for _, ni := range l {
		if ni.Name() == name {
			return ni, nil
		}
	}
	return nil, runtime.ErrNoSnapshot
}
