package daemon

import (
	"context"
	"fmt"
	"slices"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/nodeconditions"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/admission"
	"github.com/berthsched/berth/core/quota/holder"
	"github.com/berthsched/berth/core/quota/placement"
	"github.com/berthsched/berth/core/quota/workloadpods"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/core/simulate"
	"github.com/berthsched/berth/server/adminsvc"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/heldpods"
	"github.com/berthsched/berth/server/podbook"
	"github.com/berthsched/berth/server/queuesvc"
	"github.com/berthsched/berth/server/statesvc"
)

// sides is the scheduler's write side and its read side as one value.
type sides struct {
	*scheduler.Scheduler
	scheduler.View
}

func newSides(s *scheduler.Scheduler) sides { return sides{s, s.View()} }

// bookPods is the scheduler as the book's rules (podbook.Outcomes) drive
// it, AddPod being the pod kind's own Upsert: a pod reaches it admitted by
// the object store's admission stage, never admitted twice.
type bookPods struct {
	sides
	// apply is the scheduler's pod kind's Upsert, set by openObjects
	// before any pod is sent.
	apply func(ctx context.Context, pod *model.Pod) error
}

func (b *bookPods) AddPod(ctx context.Context, pod *model.Pod) error { return b.apply(ctx, pod) }

// cluster is what the state service drives: the object store in front of
// the scheduler, the bind reports through the book's rules
// (podbook.Outcomes), and the scheduler's batch, hold and read side. It
// holds no logic of its own.
type cluster struct {
	objects  *objstore.Store
	sched    *scheduler.Scheduler
	view     scheduler.View
	outcomes *podbook.Outcomes
	// held are the pods Berth holds for explicit Workloads: never the
	// orchestrator's to send or to re-list.
	held *heldpods.Controller
}

var _ statesvc.Cluster = cluster{}

func (c cluster) Upsert(ctx context.Context, obj any) error {
	if p, ok := obj.(*model.Pod); ok {
		if err := c.notHeld(p); err != nil {
			return err
		}
	}
	return c.objects.Upsert(ctx, obj)
}

// notHeld refuses a pod the orchestrator sends under the name or uid of
// one Berth holds.
func (c cluster) notHeld(p *model.Pod) error {
	if wl, ok := c.held.HoldsName(p.Namespace, p.Name); ok {
		return &convert.FieldError{Path: "pod.name", Reason: fmt.Sprintf("%s is a pod Berth holds for Workload %s (hold_pods): it is never sent", p.Key(), wl)}
	}
	if wl, ok := c.held.Holds(p.UID); ok {
		return &convert.FieldError{Path: "pod.uid", Reason: fmt.Sprintf("%s is the uid of a pod Berth holds for Workload %s (hold_pods): it is never sent", p.UID, wl)}
	}
	return nil
}

func (c cluster) Delete(ctx context.Context, ref objstore.Ref) error {
	return c.objects.Delete(ctx, ref)
}

// List lists what is held of kind; the pods Berth holds are not listed,
// so that a re-list of the pods, which never sends them, leaves them.
func (c cluster) List(kind objstore.Kind) ([]any, error) {
	objs, err := c.objects.List(kind)
	if err != nil || kind != objstore.KindPod {
		return objs, err
	}
	return slices.DeleteFunc(objs, func(o any) bool {
		p, ok := o.(*model.Pod)
		if !ok {
			return false
		}
		_, held := c.held.Holds(p.UID)
		return held
	}), nil
}

func (c cluster) CheckAdmission(pod *model.Pod) error {
	if err := c.notHeld(pod); err != nil {
		return err
	}
	_, err := c.objects.Admit(pod)
	return err
}

// ReportBindResult settles a bind through the book's rules, but for a
// pod Berth holds a CONFIRMED report does not end its durable bind: Berth
// has no other record of where such a pod runs, and a restart holds it
// there by that bind (the pod is bound in the scheduler all the same).
func (c cluster) ReportBindResult(ctx context.Context, podUID, node string, ok bool, reason string) error {
	if _, held := c.held.Holds(podUID); held && ok {
		return c.sched.ReportBindResult(ctx, podUID, node, ok, reason)
	}
	return c.outcomes.ReportBindResult(ctx, podUID, node, ok, reason)
}

func (c cluster) Hold(ctx context.Context) (func(), error) { return c.sched.Hold(ctx) }

func (c cluster) StartBatch() func(ctx context.Context) { return c.sched.StartBatch() }

func (c cluster) Pod(uid string) (*model.Pod, bool) { return c.view.Pod(uid) }

func (c cluster) Explain(namespace, name string) (scheduler.Explanation, error) {
	return c.view.Explain(namespace, name)
}

// claimForgetter keeps the allocated claims durably; *decisionlog.Log
// fits.
type claimForgetter interface {
	ForgetClaim(ctx context.Context, claim *resourceapi.ResourceClaim) error
}

// openObjects builds the object store over the scheduler's kinds (with
// their admission: pods and pod groups, core/podadmission): pods applied
// through the book's rules, a deleted allocated claim's durable copy
// dropped with it, and the node mutators in order (the taints of node
// conditions unless ignored, then the pressure taints, which the taint
// controller never sees: they are NoSchedule).
func (d *Daemon) openObjects(outcomes *podbook.Outcomes, pods *bookPods, claims claimForgetter) error {
	kinds := d.sched.Kinds()
	view := d.sched.View()
	err := objstore.Wrap(kinds, objstore.KindPod, func(t objstore.Type[*model.Pod]) objstore.Type[*model.Pod] {
		pods.apply = t.Upsert
		t.Upsert = outcomes.AddPod
		t.Delete = func(ctx context.Context, ref objstore.Ref) error {
			pod, ok := view.Pod(ref.UID)
			if !ok {
				return fmt.Errorf("delete pod %s/%s: %w", ref.Namespace, ref.Name, scheduler.ErrPodNotFound)
			}
			return outcomes.DeletePod(ctx, pod)
		}
		return t
	})
	if err == nil {
		err = objstore.Wrap(kinds, dra.KindResourceClaim, func(t objstore.Type[*resourceapi.ResourceClaim]) objstore.Type[*resourceapi.ResourceClaim] {
			del := t.Delete
			t.Delete = func(ctx context.Context, ref objstore.Ref) error {
				held, _ := view.Claim(ref.Namespace, ref.Name)
				if err := del(ctx, ref); err != nil {
					return err
				}
				if held != nil && held.Status.Allocation != nil {
					return claims.ForgetClaim(ctx, held)
				}
				return nil
			}
			return t
		})
	}
	if err == nil {
		d.kueue = holder.New()
		err = d.kueue.Register(kinds)
	}
	if err == nil {
		err = objstore.Wrap(kinds, holder.KindWorkload, func(t objstore.Type[*quota.Workload]) objstore.Type[*quota.Workload] {
			t.Admit = append(t.Admit, d.podSetsFixedWhenAdmitted(t.Get))
			return t
		})
	}
	if err != nil {
		return fmt.Errorf("daemon: %w", err)
	}
	var mutators []objstore.NodeMutator
	if !d.cfg.IgnoreNodeConditions {
		mutators = append(mutators, nodeconditions.Apply)
	}
	// d.pressure is set by openPressure, before any node is sent.
	mutators = append(mutators, func(n *model.Node) *model.Node { return d.pressure.Taints(n) })
	// d.queues is set by openQueues, before any pod is sent.
	gate := func(p *model.Pod) *model.Pod { return d.queues.Mutate(p) }
	d.objects = objstore.New(kinds, objstore.Options{NodeMutators: mutators, PodMutators: []objstore.PodMutator{gate},
		KeepSentPod: queuesvc.MayMutate})
	return nil
}

// podSetsFixedWhenAdmitted refuses a Workload holding pods
// (hold_pods) re-sent with its pod sets changed while it is admitted
// (by Berth, its Admit in the book, or sent admitted), as Kueue's webhook
// keeps an admitted workload's pod sets immutable; the refusal names the
// first field changed (workload.pod_sets[i].count, ...). Not admitted,
// the change grows or shrinks its held pods.
func (d *Daemon) podSetsFixedWhenAdmitted(get func(objstore.Ref) (*quota.Workload, bool)) objstore.Admitter[*quota.Workload] {
	return func(w *quota.Workload) (*quota.Workload, error) {
		if w == nil {
			return w, nil
		}
		old, ok := get(objstore.Ref{Namespace: w.Namespace, Name: w.Name})
		if !ok || !(old.HoldPods || w.HoldPods) || (old.UID != w.UID && w.UID != "") {
			return w, nil // new, admission only, or another workload of the name
		}
		a, booked := d.book.Admission(w.Namespace, w.Name)
		admitted := old.Admission != nil || booked && (a.GetWorkloadUid() == "" || a.GetWorkloadUid() == old.UID)
		if !admitted {
			return w, nil
		}
		if f := workloadpods.Changed(old, w); f != "" {
			return nil, &holder.InvalidError{Kind: holder.KindWorkload, Key: w.Key(), Errs: field.ErrorList{
				field.Forbidden(field.NewPath(f), "field is immutable: the workload is admitted (its pod sets cannot change while it holds quota)"),
			}}
		}
		return w, nil
	}
}

// openQueues builds the Kueue admission controller over the object store,
// the holder and the decision log, with the admissions restored, and
// subscribes it. Without a restart its rounds start at once; after one,
// at the orchestrator's first re-list (podsResynced), at the initial sync
// timeout, or at once when berthd does not wait for the re-list
// (InitialSyncTimeout 0); admissions of workloads gone are forgotten only
// from the first re-list on.
//
// Its decisions go through the scheduler's controller planner: a quota
// Evict holds its pod terminating, and the Nominations of a
// placement-aware admission hold their nodes' room in the nominator, once
// durable.
func (d *Daemon) openQueues(reg runtime.Registry) error {
	bookNodes := bindNodes{d.book}
	var err error
	d.queues, err = queuesvc.New(queuesvc.Options{
		Objects: d.objects, Holder: d.kueue, Planner: d.sched.ControllerDecisions(), Book: d.book,
		Binding:   bookNodes.BindingTo,
		Placement: d.livePlacement(reg),
		Evicted: func(uid string) bool {
			_, ok := d.book.Get(podbook.KindEvict, uid)
			return ok
		},
		Config: d.cfg.Kueue, Debounce: d.cfg.AdmissionDebounce, Registerer: d.cfg.Registry,
		Clock: d.cfg.Clock, Logger: d.logger,
	})
	if err != nil {
		return fmt.Errorf("daemon: %w", err)
	}
	d.queues.Restore(d.admissions)
	d.objects.Subscribe(d.stopping, "kueue-admission", d.queues.Handle)
	d.heldPods, err = heldpods.New(heldpods.Options{
		Objects: d.objects, Logger: d.logger,
		Bound: func(uid string) bool {
			if _, ok := d.book.Outstanding(podbook.KindBind, uid); ok {
				return true
			}
			p, ok := d.sched.View().Pod(uid)
			return ok && p.NodeName != ""
		},
	})
	if err != nil {
		return fmt.Errorf("daemon: %w", err)
	}
	d.heldSub = d.objects.Subscribe(d.stopping, "held-pods", d.heldPods.Handle)
	switch {
	case !d.restarted:
		d.queues.Relisted()
	case d.cfg.InitialSyncTimeout == 0:
		d.queues.Start()
	}
	return nil
}

// livePlacement is the admission controller's placement checker, built
// once per round that needs one: the scheduler's own profiles over a copy
// of what it holds now (adminsvc.LiveCluster, as Simulate copies it),
// with only the pods that take room: bound or binding, and nominated.
func (d *Daemon) livePlacement(reg runtime.Registry) func(ctx context.Context) (admission.PlacementChecker, error) {
	return func(ctx context.Context) (admission.PlacementChecker, error) {
		in, err := adminsvc.LiveCluster(d.sched.View(), d.cfg.Scheduler)
		if err != nil {
			return nil, fmt.Errorf("copying the cluster: %w", err)
		}
		nominated := make(map[string]bool, len(in.Nominations))
		for _, n := range in.Nominations {
			nominated[n.PodUID] = true
		}
		in.Pods = slices.DeleteFunc(in.Pods, func(p *model.Pod) bool { return p.NodeName == "" && !nominated[p.UID] })
		return placement.New(ctx, in, simulate.Options{Registry: reg, Logger: d.logger})
	}
}
