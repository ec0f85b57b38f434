package scheduler

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/queue"
)

// holdPostFilter stands in for preemption: its first call tells entered
// and waits for release, so a test can change the cluster while a pod's
// failed attempt is still in flight. Later calls return at once.
type holdPostFilter struct {
	entered, release chan struct{}
	once             sync.Once
}

const holdPostFilterName = "HoldPostFilter"

func (h *holdPostFilter) Name() string { return holdPostFilterName }

func (h *holdPostFilter) PostFilter(ctx context.Context, _ *framework.CycleState, _ *model.Pod, _ *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	h.once.Do(func() {
		close(h.entered)
		select {
		case <-h.release:
		case <-ctx.Done():
		}
	})
	return nil, framework.NewStatus(framework.Unschedulable, "held, nothing preempted")
}

// heldEnv is the in-tree plugins with holdPostFilter in preemption's place.
func heldEnv(t *testing.T) (*env, *holdPostFilter) {
	t.Helper()
	hold := &holdPostFilter{entered: make(chan struct{}), release: make(chan struct{})}
	reg := registry.InTree()
	reg[holdPostFilterName] = func(context.Context, json.RawMessage, framework.Handle) (framework.Plugin, error) { return hold, nil }
	cfg := config.Default()
	for i := range cfg.Profiles {
		pf := &cfg.Profiles[i].Plugins.PostFilter
		pf.Disabled = []config.Plugin{{Name: "*"}}
		pf.Enabled = []config.Plugin{{Name: holdPostFilterName}}
	}
	sink := &deviceSink{}
	e := &env{t: t, sink: &sink.fakeSink, reporter: &fakeReporter{}, clock: newFakeClock()}
	sink.reporter = e.reporter
	s, err := New(context.Background(), Options{
		Config: cfg, Registry: reg, Decisions: sink, Clock: e.clock,
		Deterministic: true, Replay: Replay{BindInline: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.s = s
	for _, n := range []string{"n1", "n2"} {
		e.addNodes(mt.MakeNode(n).Label(model.LabelHostname, n).Capacity(model.ResourceList{model.ResourceCPU: 8000, model.ResourceMemory: 8 * mt.Gi, model.ResourcePods: 110}).Obj())
	}
	return e, hold
}

func heldStorageClass(name string) *storagev1.StorageClass {
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: "disk.csi.example.com", VolumeBindingMode: &wffc}
}

func heldClaim(name, class string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Spec: corev1.PersistentVolumeClaimSpec{
		StorageClassName: &class, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
	}}
}

func volumePod(name string, claims ...string) *model.Pod {
	p := mt.MakePod(name).Req(mt.Res(100, 0)).Obj()
	for _, c := range claims {
		p.Volumes = append(p.Volumes, model.PodVolume{Name: c, ClaimName: c})
	}
	return p
}

// TestObjectArrivingDuringTheAttemptRequeues: an object that would let a
// pod schedule arrives while the pod's failing attempt is in flight (after
// the rejecting plugin looked, before the pod is handed back). The queue
// must judge the attempt against that event, as kube's in-flight events
// do: the pod goes to backoff or active, not among the unschedulable pods
// (where nothing else would wake it before the 5-minute flush), and the
// next attempt binds it.
func TestObjectArrivingDuringTheAttemptRequeues(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before []any      // in the cluster before the attempt
		pod    *model.Pod // rejected by the attempt for want of arrives
		// rejectedBy and reason: the rejection arrives answers.
		rejectedBy, reason string
		arrives            any
	}{{
		name:       "the claim a pod's volume names (claim not found)",
		before:     []any{heldStorageClass("fast")},
		pod:        volumePod("db", "data"),
		rejectedBy: "VolumeRestrictions", // its PreFilter looks first, as kube's
		reason:     `persistentvolumeclaim "data" not found`,
		arrives:    heldClaim("data", "fast"),
	}, {
		name:       "the class of a pod's unbound claim (unbound immediate claim)",
		before:     []any{heldClaim("data", "fast")},
		pod:        volumePod("db", "data"),
		rejectedBy: "VolumeBinding",
		reason:     "pod has unbound immediate PersistentVolumeClaims",
		arrives:    heldStorageClass("fast"),
	}, {
		name:       "the slice with the devices a pod's ResourceClaim asks for",
		before:     []any{gpuClass(), gpuClaim("c", 1)},
		pod:        claimPod("gpu-pod", "c"),
		rejectedBy: "DynamicResources",
		reason:     "cannot allocate all claims",
		arrives:    gpuSlice("n2", 1),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			e, hold := heldEnv(t)
			for _, o := range tc.before {
				if err := e.s.Upsert(ctx, o); err != nil {
					t.Fatal(err)
				}
			}
			e.addPods(tc.pod)
			done := make(chan *Attempt, 1)
			go func() {
				att, err := e.s.ScheduleOne(ctx)
				if err != nil {
					t.Error(err)
				}
				done <- att
			}()
			<-hold.entered
			if err := e.s.Upsert(ctx, tc.arrives); err != nil {
				t.Fatal(err)
			}
			close(hold.release)
			att := <-done
			if att == nil || att.Result != ResultUnschedulable {
				t.Fatalf("held attempt: %+v, want unschedulable", att)
			}
			if att.FitError == nil || !hasKey(att.FitError.Diagnosis.UnschedulablePlugins, tc.rejectedBy) || !strings.Contains(att.Message, tc.reason) {
				t.Fatalf("held attempt: %q, want a rejection by %s: %s", att.Message, tc.rejectedBy, tc.reason)
			}
			if got := e.subQueue(tc.pod.UID); got != queue.Backoff && got != queue.Active {
				t.Fatalf("after the attempt the pod is %s, want backoff or active: the event seen in flight was lost", got)
			}
			e.expireBackoff()
			if att := e.scheduleOne(); att.Result != ResultScheduled {
				t.Fatalf("next attempt: %s (%s), want scheduled", att.Result, att.Message)
			}
		})
	}
}

func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}
