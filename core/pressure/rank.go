package pressure

import (
	"slices"

	"github.com/berthsched/berth/core/model"
	"k8s.io/apimachinery/pkg/api/resource"
	statsv1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
)

// Pod is what ranking and the message need to know of a pod on the node.
type Pod struct {
	UID, Namespace, Name string
	Priority             int32
	// Critical: static and mirror pods are critical too; the caller knows.
	Critical bool
	// TerminationGracePeriodSeconds is the pod's own grace (nil: unset).
	TerminationGracePeriodSeconds *int64
	// MemoryRequest and EphemeralStorageRequest are the pod's effective
	// requests (containers, init containers, overhead), as kube computes them.
	MemoryRequest           resource.Quantity
	EphemeralStorageRequest resource.Quantity
	// Containers are the regular and init containers with their requests,
	// for the message.
	Containers []Container
	// LocalVolumes name the pod's volumes whose usage counts as the pod's
	// disk (hostPath, disk-backed emptyDir, configMap, gitRepo, ...). Nil:
	// the pod's volume sources are unknown (Berth's Pod does not carry
	// them), so every volume the Summary lists without a PVC counts.
	LocalVolumes []string
}

// Container is a container's name and requests.
type Container struct {
	Name                    string
	MemoryRequest           resource.Quantity
	EphemeralStorageRequest resource.Quantity
}

// Key is "namespace/name".
func (p *Pod) Key() string { return p.Namespace + "/" + p.Name }

// IsCritical reports whether the pod may never be evicted for pressure.
func (p *Pod) IsCritical() bool { return p.Critical || p.Priority >= model.SystemCriticalPriority }

// podStats finds a pod's stats by UID, as the kubelet matches them.
type podStats map[string]*statsv1.PodStats

func statsByUID(s *statsv1.Summary) podStats {
	m := make(podStats, len(s.Pods))
	for i := range s.Pods {
		m[s.Pods[i].PodRef.UID] = &s.Pods[i]
	}
	return m
}

// rankKey is what ranking compares for one pod, computed once.
type rankKey struct {
	pod      *Pod
	hasStats bool
	exceeds  bool  // usage above request
	above    int64 // usage minus request
	procs    uint64
}

// Rank orders the pods for eviction for the signal, as the kubelet's rank
// functions do. Memory and disk: pods without stats first, then pods using
// more than they request, then lower priority, then larger usage above
// request. PID: lower priority first, then pods without stats, then more
// processes.
// Disk usage counts every container's rootfs and logs plus the pod's local
// volumes (the kubelet's ranking with one filesystem for nodefs, imagefs and
// containerfs). The sort is stable: equal pods keep the given order.
func Rank(signal Signal, pods []*Pod, s *statsv1.Summary) []*Pod {
	byUID := statsByUID(s)
	keys := make([]rankKey, len(pods))
	order := make([]*rankKey, len(pods))
	for i, p := range pods {
		keys[i] = keyFor(signal, p, byUID[p.UID])
		order[i] = &keys[i]
	}
	less := lessMemoryOrDisk
	if signal == SignalPIDAvailable {
		less = lessPID
	}
	slices.SortStableFunc(order, func(a, b *rankKey) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return 0
	})
	out := make([]*Pod, len(order))
	for i, k := range order {
		out[i] = k.pod
	}
	return out
}

// lessMemoryOrDisk: pods without stats first, then those above their
// request, then lower priority, then more usage above the request.
func lessMemoryOrDisk(a, b *rankKey) bool {
	if a.hasStats != b.hasStats {
		return !a.hasStats
	}
	if a.exceeds != b.exceeds {
		return a.exceeds
	}
	if a.pod.Priority != b.pod.Priority {
		return a.pod.Priority < b.pod.Priority
	}
	return a.hasStats && a.above > b.above
}

// lessPID: priority first, then pods without stats, then more processes.
func lessPID(a, b *rankKey) bool {
	if a.pod.Priority != b.pod.Priority {
		return a.pod.Priority < b.pod.Priority
	}
	if a.hasStats != b.hasStats {
		return !a.hasStats
	}
	return a.hasStats && a.procs > b.procs
}

func keyFor(signal Signal, p *Pod, st *statsv1.PodStats) rankKey {
	k := rankKey{pod: p, hasStats: st != nil}
	if st == nil {
		return k
	}
	var usage, request int64
	switch signal.Resource() {
	case "memory":
		usage, request = memoryOf(st.Memory), p.MemoryRequest.Value()
	case "ephemeral-storage":
		usage, request = podDisk(st, p, false), p.EphemeralStorageRequest.Value()
	case "inodes":
		// The kubelet compares inodes against the inodes request (none
		// exists) to decide "exceeds", and against the ephemeral-storage
		// request for the amount above it.
		usage = podDisk(st, p, true)
		k.exceeds = usage > 0
		k.above = usage - p.EphemeralStorageRequest.Value()
		return k
	case "pids":
		if st.ProcessStats != nil && st.ProcessStats.ProcessCount != nil {
			k.procs = *st.ProcessStats.ProcessCount
		}
		return k
	}
	k.exceeds = usage > request
	k.above = usage - request
	return k
}

func memoryOf(m *statsv1.MemoryStats) int64 {
	if m == nil || m.WorkingSetBytes == nil {
		return 0
	}
	return int64(*m.WorkingSetBytes)
}

// podDisk is the pod's bytes (or inodes) on the node's filesystem: its
// containers' writable layers and logs and its local volumes.
func podDisk(st *statsv1.PodStats, p *Pod, inodes bool) int64 {
	var total int64
	add := func(fs *statsv1.FsStats) {
		switch {
		case fs == nil:
		case inodes && fs.InodesUsed != nil:
			total += int64(*fs.InodesUsed)
		case !inodes && fs.UsedBytes != nil:
			total += int64(*fs.UsedBytes)
		}
	}
	for i := range st.Containers {
		add(st.Containers[i].Rootfs)
		add(st.Containers[i].Logs)
	}
	for i := range st.VolumeStats {
		v := &st.VolumeStats[i]
		if p.LocalVolumes == nil && v.PVCRef == nil || slices.Contains(p.LocalVolumes, v.Name) {
			add(&v.FsStats)
		}
	}
	return total
}
