package parity_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/plugins/names"
	"github.com/berthsched/berth/core/plugins/nodevolumelimits"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/plugins/volumebinding"
	"github.com/berthsched/berth/core/plugins/volumerestrictions"
	"github.com/berthsched/berth/core/plugins/volumezone"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/core/volume"
)

// TestVolumeHintsChangeNothing runs the storage corpus through the real
// scheduling loop (pods popped from the queue, rejected pods waiting among
// the unschedulable until an event moves them) twice: with the volume
// plugins' queueing hints, and with every event they register requeueing
// every pod they rejected. The orchestrator's part is played as berthd's
// callers play it: a Bind is confirmed, the volumes it chose are bound and
// those to provision are made and bound, each a storage event. The churn
// variant also changes storage objects while pods wait (volumes added,
// relabelled and deleted, missing claims created, Immediate claims bound,
// classes, CSINodes, CSIDrivers and capacities changed, pods with claims
// deleted). The decisions (binds with their volumes, nominations,
// evictions) must be the same step by step; the hints must requeue fewer
// pods, and the counts are logged.
//
// Those two variants run without preemption. A hint judges an event by the
// plugins that rejected the pod's Filter pass, not by what held back its
// preemption: a pod rejected by VolumeRestrictions (its ReadWriteOncePod
// claim in use) whose preemption failed for want of cpu on the user's
// node is not requeued when another pod leaves that node, as in kube,
// where it waits for another event or the periodic flush. The third
// variant, churn with preemption, counts the clusters where that changes
// the decisions and requires only that the hints requeue fewer pods.
func TestVolumeHintsChangeNothing(t *testing.T) {
	clusters, err := filepath.Glob(filepath.Join("testdata", "volumes", "clusters", "*.yaml"))
	if err != nil || len(clusters) == 0 {
		t.Fatalf("no storage corpus: %v", err)
	}
	if raceDetector {
		var some []string
		for i := 0; i < len(clusters); i += 3 {
			some = append(some, clusters[i])
		}
		clusters = some
	}
	for _, variant := range []struct {
		name    string
		steps   int
		preempt bool
	}{{"corpus", 0, false}, {"churn", 20, false}, {"churn with preemption", 20, true}} {
		t.Run(variant.name, func(t *testing.T) {
			var withHints, without, decisions, differ int
			for _, cluster := range clusters {
				name := strings.TrimSuffix(filepath.Base(cluster), ".yaml")
				c, err := manifest.LoadFiles(cluster)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				seed := fnv.New64a()
				seed.Write([]byte(name))
				hinted := replayVolumes(t, c, false, variant.preempt, seed.Sum64(), variant.steps)
				always := replayVolumes(t, c, true, variant.preempt, seed.Sum64(), variant.steps)
				if diff := gocmp.Diff(always.decisions, hinted.decisions); diff != "" {
					differ++
					if !variant.preempt {
						t.Errorf("%s: the hints changed the decisions (-always requeue +hints):\n%s", name, diff)
					}
				}
				if hinted.requeued > always.requeued {
					t.Errorf("%s: the hints requeued %d pods, always requeueing %d", name, hinted.requeued, always.requeued)
				}
				withHints += hinted.requeued
				without += always.requeued
				decisions += len(hinted.decisions)
			}
			t.Logf("%d clusters, %d decisions: pods requeued %d with the hints, %d always requeueing; decisions differ in %d clusters", len(clusters), decisions, withHints, without, differ)
			// On the corpus alone few events come while pods wait (the
			// orchestrator's bindings), and a sample may requeue as many.
			if withHints > without || (variant.steps > 0 && withHints == without) {
				t.Errorf("the hints requeued %d pods, always requeueing %d", withHints, without)
			}
			if decisions < 100 {
				t.Errorf("only %d decisions compared; the corpus is too small to mean much", decisions)
			}
		})
	}
}

// volumeReplay is one run's outcome.
type volumeReplay struct {
	decisions []string
	// requeued counts the attempts of pods an event moved out of the
	// unschedulable pods (every attempt but each pod's first).
	requeued int
}

// replayVolumes runs cluster c through the scheduling loop, then steps
// changes of its storage objects (seeded), draining the queue after each.
// always strips the volume plugins' hint functions; preempt keeps
// DefaultPreemption in the profile.
func replayVolumes(t *testing.T, c *manifest.Cluster, always, preempt bool, seed uint64, steps int) volumeReplay {
	t.Helper()
	ctx := context.Background()
	reg := registry.InTree()
	// Pods the queue ties pop by creation time and name, whatever their
	// history of attempts (kube's PrioritySort orders them by their last
	// queueing), so both runs try the pods an event moves in one order.
	reg[names.PrioritySort] = func(context.Context, json.RawMessage, framework.Handle) (framework.Plugin, error) {
		return canonicalSort{}, nil
	}
	if always {
		stripHints(reg)
	}
	if !preempt {
		delete(reg, names.DefaultPreemption) // and so from the profile, as a plugin Berth lacks
	}
	cfg := config.Default()
	if c.SchedulerConfig != nil {
		var err error
		if cfg, err = config.Load(c.SchedulerConfig); err != nil {
			t.Fatal(err)
		}
	}
	withoutUnregistered(cfg, reg)
	r := &volumeRun{t: t, clock: &steppedClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, rng: rand.New(rand.NewPCG(seed, 30))}
	all := int32(100)
	s, err := scheduler.New(ctx, scheduler.Options{Config: cfg, Registry: reg, Decisions: r, Clock: r.clock, Deterministic: true,
		PercentageOfNodesToScore: &all, Replay: scheduler.Replay{BindInline: true}})
	if err != nil {
		t.Fatal(err)
	}
	r.s = s
	r.load(ctx, c)
	r.drain(ctx)
	for step := range steps {
		r.clock.step()
		r.decisions = append(r.decisions, fmt.Sprintf("step %d: %s", step, r.churn(ctx)))
		r.drain(ctx)
	}
	return volumeReplay{decisions: r.decisions, requeued: r.requeued}
}

// canonicalSort is PrioritySort with ties broken by creation time and
// name instead of by queue timestamp.
type canonicalSort struct{}

func (canonicalSort) Name() string { return names.PrioritySort }

func (canonicalSort) Less(a, b *framework.QueuedPodInfo) bool {
	pa, pb := a.Pod, b.Pod
	if pa.Priority != pb.Priority {
		return pa.Priority > pb.Priority
	}
	if !pa.CreationTime.Equal(pb.CreationTime) {
		return pa.CreationTime.Before(pb.CreationTime)
	}
	return pa.Key() < pb.Key()
}

// stripHints makes the volume plugins register their events without hint
// functions: every event they registered requeues every pod they rejected.
func stripHints(reg runtime.Registry) {
	wrap := func(name string, strip func(framework.Plugin) framework.Plugin) {
		f := reg[name]
		reg[name] = func(ctx context.Context, args json.RawMessage, h framework.Handle) (framework.Plugin, error) {
			pl, err := f(ctx, args, h)
			if err != nil {
				return nil, err
			}
			return strip(pl), nil
		}
	}
	wrap(names.VolumeBinding, func(p framework.Plugin) framework.Plugin { return bindingAlways{p.(*volumebinding.VolumeBinding)} })
	wrap(names.VolumeZone, func(p framework.Plugin) framework.Plugin { return zoneAlways{p.(*volumezone.VolumeZone)} })
	wrap(names.NodeVolumeLimits, func(p framework.Plugin) framework.Plugin { return limitsAlways{p.(*nodevolumelimits.CSILimits)} })
	wrap(names.VolumeRestrictions, func(p framework.Plugin) framework.Plugin {
		return restrictionsAlways{p.(*volumerestrictions.VolumeRestrictions)}
	})
}

func withoutHintFns(events []framework.ClusterEventWithHint, err error) ([]framework.ClusterEventWithHint, error) {
	out := slices.Clone(events)
	for i := range out {
		out[i].QueueingHintFn = nil
	}
	return out, err
}

type bindingAlways struct{ *volumebinding.VolumeBinding }

func (p bindingAlways) EventsToRegister(ctx context.Context) ([]framework.ClusterEventWithHint, error) {
	return withoutHintFns(p.VolumeBinding.EventsToRegister(ctx))
}

type zoneAlways struct{ *volumezone.VolumeZone }

func (p zoneAlways) EventsToRegister(ctx context.Context) ([]framework.ClusterEventWithHint, error) {
	return withoutHintFns(p.VolumeZone.EventsToRegister(ctx))
}

type limitsAlways struct{ *nodevolumelimits.CSILimits }

func (p limitsAlways) EventsToRegister(ctx context.Context) ([]framework.ClusterEventWithHint, error) {
	return withoutHintFns(p.CSILimits.EventsToRegister(ctx))
}

type restrictionsAlways struct {
	*volumerestrictions.VolumeRestrictions
}

func (p restrictionsAlways) EventsToRegister(ctx context.Context) ([]framework.ClusterEventWithHint, error) {
	return withoutHintFns(p.VolumeRestrictions.EventsToRegister(ctx))
}

// steppedClock moves only when told: an hour a step, so every backoff has
// ended when an event moves a pod and it goes to activeQ.
type steppedClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *steppedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *steppedClock) step() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Hour)
}

// volumeRun is one replay: the scheduler, the planner it submits to (which
// records the decisions and deletes the victims at once), and the
// orchestrator's part.
type volumeRun struct {
	t     *testing.T
	s     *scheduler.Scheduler
	clock *steppedClock
	rng   *rand.Rand

	mu        sync.Mutex
	decisions []string
	binds     map[string][]framework.VolumeBinding // by pod uid, until confirmed
	victims   []*model.Pod

	tried    map[string]bool
	requeued int
	made     int // objects made by churn, for their names
}

func (r *volumeRun) Submit(_ context.Context, plan framework.Plan) (framework.PlanResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, item := range plan.Items {
		switch it := item.(type) {
		case *framework.Bind:
			vols := make([]string, 0, len(it.Volumes))
			for _, v := range it.Volumes {
				vols = append(vols, v.Claim+"="+cmp.Or(v.Volume, "provision@"+v.SelectedNode))
			}
			r.decisions = append(r.decisions, fmt.Sprintf("bind %s %s %v", it.Pod.Key(), it.Node, vols))
			if r.binds == nil {
				r.binds = map[string][]framework.VolumeBinding{}
			}
			r.binds[it.Pod.UID] = it.Volumes
		case *framework.Eviction:
			r.decisions = append(r.decisions, fmt.Sprintf("evict %s from %s for %s", it.Victim.Key(), it.Node, it.Preemptor.Key()))
			r.victims = append(r.victims, it.Victim)
		case *framework.Nomination:
			r.decisions = append(r.decisions, fmt.Sprintf("nominate %s %s", it.Pod.Key(), it.Node))
		}
	}
	return framework.PlanResult{}, nil
}

func (r *volumeRun) must(err error) {
	r.t.Helper()
	if err != nil {
		r.t.Fatal(err)
	}
}

// load sends the cluster as berthd's caller would: nodes, storage
// objects, running pods, then the pending ones.
func (r *volumeRun) load(ctx context.Context, c *manifest.Cluster) {
	for _, ns := range c.Namespaces {
		r.must(r.s.Upsert(ctx, ns))
	}
	for _, pc := range c.PriorityClasses {
		r.must(r.s.Upsert(ctx, pc))
	}
	for _, n := range c.Nodes {
		r.must(r.s.Upsert(ctx, n))
	}
	if o := c.Volumes; o != nil {
		for _, obj := range slices.Concat(sortedObjects(o.Classes), sortedObjects(o.Drivers), sortedObjects(o.CSINodes),
			sortedObjects(o.Capacities), sortedObjects(o.Volumes), sortedObjects(o.Claims)) {
			r.must(r.s.Upsert(ctx, obj))
		}
	}
	for _, running := range []bool{true, false} {
		for _, p := range c.Pods {
			if (p.NodeName != "") == running {
				r.must(r.s.AddPod(ctx, p))
			}
		}
	}
}

func sortedObjects[T any](m map[string]*T) []any {
	var out []any
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}) {
		out = append(out, m[k])
	}
	return out
}

// drain schedules until no pod is active or backing off, playing the
// orchestrator after each attempt.
func (r *volumeRun) drain(ctx context.Context) {
	if r.tried == nil {
		r.tried = map[string]bool{}
	}
	for range 10_000 {
		q := r.s.View().Stats().Queue
		if q.Active+q.Backoff == 0 {
			return
		}
		r.clock.step()
		att, err := r.s.ScheduleOne(ctx)
		r.must(err)
		if att == nil {
			continue
		}
		if r.tried[att.Pod.UID] {
			r.requeued++
		}
		r.tried[att.Pod.UID] = true
		r.mu.Lock()
		victims := r.victims
		r.victims = nil
		r.mu.Unlock()
		for _, v := range victims {
			if err := r.s.DeletePod(ctx, v); err != nil && !strings.Contains(err.Error(), "not found") {
				r.t.Fatal(err)
			}
		}
		if att.Result == scheduler.ResultScheduled && att.BindStatus.IsSuccess() {
			r.confirm(ctx, att.Pod.UID, att.Node)
		}
	}
	r.t.Fatal("the queue never drained")
}

// confirm plays the orchestrator for a Bind: the volumes bound, those to
// provision made for the selected node and bound, the pod sent bound.
func (r *volumeRun) confirm(ctx context.Context, uid, node string) {
	r.mu.Lock()
	vols := r.binds[uid]
	delete(r.binds, uid)
	r.mu.Unlock()
	pod, ok := r.s.View().Pod(uid)
	if !ok {
		return
	}
	for _, b := range vols {
		claim := r.claim(pod.Namespace, b.Claim)
		if claim == nil {
			continue
		}
		var pv *corev1.PersistentVolume
		if b.Volume != "" {
			pv = r.volume(b.Volume)
		} else {
			pv = r.provisioned(claim, node)
		}
		if pv != nil {
			r.bindClaim(ctx, claim, pv)
		}
	}
	bound := *pod
	bound.NodeName, bound.NominatedNodeName, bound.Ready = node, "", true
	bound.StartTime = r.clock.Now()
	r.must(r.s.AddPod(ctx, &bound))
}

func (r *volumeRun) claim(ns, name string) *corev1.PersistentVolumeClaim {
	for _, c := range r.s.View().PersistentVolumeClaims() {
		if c.Namespace == ns && c.Name == name {
			return c.DeepCopy()
		}
	}
	return nil
}

func (r *volumeRun) volume(name string) *corev1.PersistentVolume {
	for _, pv := range r.s.View().PersistentVolumes() {
		if pv.Name == name {
			return pv.DeepCopy()
		}
	}
	return nil
}

// provisioned is the volume a provisioner makes for claim on node: the
// claim's size, class and modes, the class's driver, the node's zone.
func (r *volumeRun) provisioned(claim *corev1.PersistentVolumeClaim, node string) *corev1.PersistentVolume {
	class := volume.ClaimClass(claim)
	driver := "provisioner.example.com"
	for _, sc := range r.s.View().StorageClasses() {
		if sc.Name == class {
			driver = sc.Provisioner
		}
	}
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pvc-" + claim.Namespace + "-" + claim.Name},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: claim.Spec.Resources.Requests[corev1.ResourceStorage]},
			AccessModes:                   claim.Spec.AccessModes,
			StorageClassName:              class,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: "h-" + claim.Name}},
		},
	}
	if usage, err := r.s.View().Nodes(); err == nil {
		for _, u := range usage {
			if z, ok := u.Node.Labels[corev1.LabelTopologyZone]; ok && u.Node.Name == node {
				pv.Labels = map[string]string{corev1.LabelTopologyZone: z}
			}
		}
	}
	return pv
}

// bindClaim is the volume controller binding claim and pv to each other.
func (r *volumeRun) bindClaim(ctx context.Context, claim *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume) {
	pv.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: claim.Namespace, Name: claim.Name, UID: claim.UID}
	pv.Status.Phase = corev1.VolumeBound
	r.must(r.s.Upsert(ctx, pv))
	claim.Spec.VolumeName = pv.Name
	metav1.SetMetaDataAnnotation(&claim.ObjectMeta, volume.AnnBindCompleted, "yes")
	claim.Status.Phase = corev1.ClaimBound
	r.must(r.s.Upsert(ctx, claim))
}

// churn makes one random change to the storage objects (or deletes a pod
// with claims) and says what it did.
func (r *volumeRun) churn(ctx context.Context) string {
	v := r.s.View()
	r.made++
	pick := func(n int) int { return r.rng.IntN(max(n, 1)) }
	switch r.rng.IntN(10) {
	case 0: // a volume added, like one of the others, maybe larger
		pvs := v.PersistentVolumes()
		if len(pvs) == 0 {
			return "no volume to copy"
		}
		pv := pvs[pick(len(pvs))].DeepCopy()
		pv.Name = fmt.Sprintf("churn-pv-%d", r.made)
		pv.ResourceVersion, pv.Spec.ClaimRef, pv.Status.Phase = "", nil, corev1.VolumeAvailable
		if r.rng.IntN(2) == 0 {
			q := pv.Spec.Capacity[corev1.ResourceStorage]
			pv.Spec.Capacity[corev1.ResourceStorage] = *resource.NewQuantity(2*q.Value(), resource.BinarySI)
		}
		if pv.Spec.CSI != nil {
			pv.Spec.CSI.VolumeHandle = pv.Name
		}
		r.must(r.s.Upsert(ctx, pv))
		return "add volume like " + pvs[0].Name
	case 1: // a volume relabelled: its zone moved, or a label of no meaning added
		pvs := v.PersistentVolumes()
		if len(pvs) == 0 {
			return "no volume to relabel"
		}
		pv := pvs[pick(len(pvs))].DeepCopy()
		if pv.Labels == nil {
			pv.Labels = map[string]string{}
		}
		if _, zonal := pv.Labels[corev1.LabelTopologyZone]; zonal && r.rng.IntN(2) == 0 {
			pv.Labels[corev1.LabelTopologyZone] = []string{"zone-a", "zone-b", "zone-c"}[r.rng.IntN(3)]
		} else {
			pv.Labels["team"] = fmt.Sprint(r.made)
		}
		r.must(r.s.Upsert(ctx, pv))
		return "relabel volume " + pv.Name
	case 2: // an available volume deleted
		for _, pv := range v.PersistentVolumes() {
			if pv.Spec.ClaimRef == nil {
				r.must(r.s.Delete(ctx, objstore.Ref{Kind: objstore.Kind(volume.KindPersistentVolume), Name: pv.Name}))
				return "delete volume " + pv.Name
			}
		}
		return "no available volume"
	case 3: // a claim a pending pod waits for created, or an Immediate claim bound
		if msg, ok := r.createMissingClaim(ctx); ok {
			return msg
		}
		return r.bindImmediateClaim(ctx)
	case 4: // a claim changed in nothing scheduling reads
		claims := v.PersistentVolumeClaims()
		if len(claims) == 0 {
			return "no claim"
		}
		c := claims[pick(len(claims))].DeepCopy()
		metav1.SetMetaDataLabel(&c.ObjectMeta, "touched", fmt.Sprint(r.made))
		r.must(r.s.Upsert(ctx, c))
		return "touch claim " + c.Namespace + "/" + c.Name
	case 5: // a class added, relabelled or its topologies lifted
		classes := v.StorageClasses()
		if len(classes) == 0 {
			return "no class"
		}
		sc := classes[pick(len(classes))].DeepCopy()
		switch r.rng.IntN(3) {
		case 0:
			sc.Name = fmt.Sprintf("churn-class-%d", r.made)
		case 1:
			metav1.SetMetaDataLabel(&sc.ObjectMeta, "touched", fmt.Sprint(r.made))
		default:
			sc.AllowedTopologies = nil
		}
		r.must(r.s.Upsert(ctx, sc))
		return "class " + sc.Name
	case 6: // a CSINode's limit raised or lowered
		nodes := v.CSINodes()
		if len(nodes) == 0 {
			return "no CSINode"
		}
		n := nodes[pick(len(nodes))].DeepCopy()
		for i := range n.Spec.Drivers {
			d := &n.Spec.Drivers[i]
			count := int32(0)
			if d.Allocatable != nil && d.Allocatable.Count != nil {
				count = *d.Allocatable.Count
			}
			count = max(count+int32(r.rng.IntN(3))-1, 0)
			d.Allocatable = &storagev1.VolumeNodeResources{Count: &count}
		}
		r.must(r.s.Upsert(ctx, n))
		return "CSINode " + n.Name
	case 7: // a capacity grown or shrunk
		caps := v.CSIStorageCapacities()
		if len(caps) == 0 {
			return "no capacity"
		}
		c := caps[pick(len(caps))].DeepCopy()
		if c.Capacity != nil {
			factor := []float64{0.5, 2}[r.rng.IntN(2)]
			c.Capacity = resource.NewQuantity(int64(float64(c.Capacity.Value())*factor), resource.BinarySI)
		}
		r.must(r.s.Upsert(ctx, c))
		return "capacity " + c.Name
	case 8: // a driver's storage capacity reporting turned on or off
		drivers := v.CSIDrivers()
		if len(drivers) == 0 {
			return "no driver"
		}
		d := drivers[pick(len(drivers))].DeepCopy()
		on := d.Spec.StorageCapacity == nil || !*d.Spec.StorageCapacity
		d.Spec.StorageCapacity = &on
		r.must(r.s.Upsert(ctx, d))
		return fmt.Sprintf("driver %s storageCapacity %v", d.Name, on)
	default: // a running pod with claims deleted
		var withClaims []*model.Pod
		for _, p := range v.Pods() {
			if p.NodeName != "" && slices.ContainsFunc(p.Volumes, func(pv model.PodVolume) bool { return pv.ClaimName != "" }) {
				withClaims = append(withClaims, p)
			}
		}
		if len(withClaims) == 0 {
			return "no running pod with claims"
		}
		slices.SortFunc(withClaims, func(a, b *model.Pod) int { return strings.Compare(a.Key(), b.Key()) })
		p := withClaims[pick(len(withClaims))]
		r.must(r.s.DeletePod(ctx, p))
		return "delete pod " + p.Key()
	}
}

// createMissingClaim makes the first claim a pending pod names that does
// not exist, of a random class.
func (r *volumeRun) createMissingClaim(ctx context.Context) (string, bool) {
	v := r.s.View()
	have := map[string]bool{}
	for _, c := range v.PersistentVolumeClaims() {
		have[c.Namespace+"/"+c.Name] = true
	}
	pods := v.Pods()
	slices.SortFunc(pods, func(a, b *model.Pod) int { return strings.Compare(a.Key(), b.Key()) })
	classes := v.StorageClasses()
	for _, p := range pods {
		for _, pv := range p.Volumes {
			if pv.ClaimName == "" || pv.Ephemeral != nil || have[p.Namespace+"/"+pv.ClaimName] || p.NodeName != "" {
				continue
			}
			c := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: pv.ClaimName},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
				}}
			if len(classes) > 0 {
				name := classes[r.rng.IntN(len(classes))].Name
				c.Spec.StorageClassName = &name
			}
			r.must(r.s.Upsert(ctx, c))
			return "create claim " + c.Namespace + "/" + c.Name, true
		}
	}
	return "", false
}

// bindImmediateClaim plays the volume controller for the first unbound
// claim of an Immediate class: a volume made for it in a random zone.
func (r *volumeRun) bindImmediateClaim(ctx context.Context) string {
	v := r.s.View()
	immediate := map[string]string{} // class -> provisioner
	for _, sc := range v.StorageClasses() {
		if sc.VolumeBindingMode == nil || *sc.VolumeBindingMode == storagev1.VolumeBindingImmediate {
			immediate[sc.Name] = sc.Provisioner
		}
	}
	for _, c := range v.PersistentVolumeClaims() {
		if _, ok := immediate[volume.ClaimClass(c)]; !ok || c.Spec.VolumeName != "" {
			continue
		}
		claim := c.DeepCopy()
		pv := r.provisioned(claim, "")
		pv.Labels = map[string]string{corev1.LabelTopologyZone: []string{"zone-a", "zone-b", "zone-c"}[r.rng.IntN(3)]}
		r.bindClaim(ctx, claim, pv)
		return "bind immediate claim " + c.Namespace + "/" + c.Name
	}
	return "no immediate claim to bind"
}
