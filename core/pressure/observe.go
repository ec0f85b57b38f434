package pressure

import (
	"time"

	statsv1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
)

// Observation is what a Summary says about one signal: what is available,
// out of what capacity, measured when.
type Observation struct {
	Available int64
	Capacity  int64
	Time      time.Time
	// Binary says the signal is in bytes (printed as 100Mi), not a count.
	Binary bool
}

// Observations are a Summary's signals; a signal the Summary does not
// measure is absent, and its thresholds are never met.
type Observations map[Signal]Observation

// Observe reads the signals from a Summary as the kubelet does:
// memory.available from the node's memory, allocatableMemory.available from
// the "pods" system container, the filesystems' available bytes and free
// inodes, and pid.available as maxpid minus the running processes.
func Observe(s *statsv1.Summary) Observations {
	obs := Observations{}
	if m := s.Node.Memory; m != nil && m.AvailableBytes != nil && m.WorkingSetBytes != nil {
		obs[SignalMemoryAvailable] = bytesObs(*m.AvailableBytes, *m.AvailableBytes+*m.WorkingSetBytes, m.Time.Time)
	}
	for _, c := range s.Node.SystemContainers {
		if c.Name != statsv1.SystemContainerPods {
			continue
		}
		if m := c.Memory; m != nil && m.AvailableBytes != nil && m.WorkingSetBytes != nil {
			obs[SignalAllocatableMemoryAvailable] = bytesObs(*m.AvailableBytes, *m.AvailableBytes+*m.WorkingSetBytes, m.Time.Time)
		}
		break
	}
	observeFs(obs, s.Node.Fs, SignalNodeFsAvailable, SignalNodeFsInodesFree)
	if rt := s.Node.Runtime; rt != nil {
		observeFs(obs, rt.ImageFs, SignalImageFsAvailable, SignalImageFsInodesFree)
		observeFs(obs, rt.ContainerFs, SignalContainerFsAvailable, SignalContainerFsInodesFree)
	}
	if r := s.Node.Rlimit; r != nil && r.MaxPID != nil && r.NumOfRunningProcesses != nil {
		obs[SignalPIDAvailable] = Observation{Available: *r.MaxPID - *r.NumOfRunningProcesses, Capacity: *r.MaxPID, Time: r.Time.Time}
	}
	return obs
}

func observeFs(obs Observations, fs *statsv1.FsStats, bytesSig, inodesSig Signal) {
	if fs == nil {
		return
	}
	if fs.AvailableBytes != nil && fs.CapacityBytes != nil {
		obs[bytesSig] = bytesObs(*fs.AvailableBytes, *fs.CapacityBytes, fs.Time.Time)
	}
	if fs.InodesFree != nil && fs.Inodes != nil {
		obs[inodesSig] = Observation{Available: int64(*fs.InodesFree), Capacity: int64(*fs.Inodes), Time: fs.Time.Time}
	}
}

func bytesObs(avail, capacity uint64, at time.Time) Observation {
	return Observation{Available: int64(avail), Capacity: int64(capacity), Time: at, Binary: true}
}
