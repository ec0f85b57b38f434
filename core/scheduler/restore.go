package scheduler

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/queue"
	"github.com/berthsched/berth/core/volume"
)

// Restored is what the server kept durably of decisions awaiting their
// outcome, handed back after a restart (Restore), before the
// orchestrator's re-list.
type Restored struct {
	// Nominations are the nominations no Bind, ClearNomination or
	// deletion ended: a pod re-sent without a nomination of its own gets
	// its restored one back.
	Nominations []queue.Nomination
	// Evictions are the pods evicted and not yet deleted: each is held as
	// terminating by preemption when it arrives, until it is deleted. (The
	// cause is not kept: a pod evicted for a taint, the API or pressure
	// comes back terminating by preemption, so a preemptor nominated to
	// its node waits for it rather than preempting again.)
	Evictions []string
	// Claims are the allocated claims, with their consumers (binds
	// awaiting their outcome included): no device is allocated twice, and
	// a claim re-sent without allocation keeps its own.
	Claims []*resourceapi.ResourceClaim
	// Volumes are the volume bindings of the binds awaiting their
	// outcome: each volume stays reserved for its claim and each claim to
	// provision keeps its node, so no volume promised before the restart
	// is offered to another claim after it.
	Volumes []RestoredVolumes
}

// RestoredVolumes are the volume bindings one pod's Bind carried.
type RestoredVolumes struct {
	PodUID, Namespace string
	Bindings          []framework.VolumeBinding
}

// Restore loads what the server kept durably (at startup or on becoming
// the leader, before the pods are re-sent). Call Resynced once the first
// re-list of every pod is complete.
func (s *Scheduler) Restore(r Restored) {
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	s.queue.Nominator().Restore(r.Nominations)
	s.state.restoreEvictions(r.Evictions)
	s.devices.Restore(r.Claims)
	for _, v := range r.Volumes {
		bindings := make([]volume.Binding, len(v.Bindings))
		for i, b := range v.Bindings {
			claim := &corev1.PersistentVolumeClaim{}
			claim.Namespace, claim.Name = v.Namespace, b.Claim
			bindings[i] = volume.Binding{Claim: claim, Volume: b.Volume, SelectedNode: b.SelectedNode}
		}
		s.volumes.RestorePod(v.PodUID, bindings)
	}
}

// Forgotten is what Resynced dropped of what was restored, for pods the
// re-list did not bring back (deleted while berthd was down).
type Forgotten struct {
	// Evictions are the pods whose restored eviction was dropped, sorted.
	Evictions []string
	// Nominations counts the nominations dropped.
	Nominations int
	// Claims are the claims deallocated (reported as Deallocations) for
	// having lost their last consumer.
	Claims []*resourceapi.ResourceClaim
	// Volumes counts the pods whose restored volume bindings were
	// released.
	Volumes int
}

// Resynced follows a complete re-list of the pods: what Restore brought
// back for pods the scheduler does not hold is dropped. Evictions and
// nominations go; claims lose those pods as consumers, the claims made
// for them are deleted, and claims left without consumers are
// deallocated, their Deallocations durable before any cycle sees the
// devices free; volumes reserved for them are free again. A pod sent
// later finds none of it.
func (s *Scheduler) Resynced(ctx context.Context) (Forgotten, error) {
	f := Forgotten{Evictions: s.state.forgetUnknownEvictions()}
	for _, nom := range s.queue.Nominator().All() {
		if _, ok := s.state.lookup(nom.PodUID); !ok {
			s.queue.Nominator().DeleteNominatedPodIfExists(&model.Pod{UID: nom.PodUID})
			f.Nominations++
		}
	}
	s.ingestMu.Lock()
	for _, uid := range s.volumes.Pods() {
		if _, ok := s.state.lookup(uid); !ok {
			s.releaseVolumesLocked(ctx, uid)
			f.Volumes++
		}
	}
	s.ingestMu.Unlock()
	var err error
	f.Claims, err = s.forgetUnknownClaimConsumers(ctx)
	return f, err
}

// releaseVolumesLocked frees what the pod's bindings reserved and raises
// the volumes' and claims' update events, so that pods waiting for them
// are tried again.
func (s *Scheduler) releaseVolumesLocked(ctx context.Context, uid string) {
	for _, obj := range s.volumes.ForgetPod(uid) {
		kind := volume.KindPersistentVolume
		if _, ok := obj.(*corev1.PersistentVolumeClaim); ok {
			kind = volume.KindPersistentVolumeClaim
		}
		s.volumeEvent(ctx, kind, obj, obj)
	}
}
