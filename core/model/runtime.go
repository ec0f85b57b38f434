package model

// PodRuntime is what a bound pod's controller, spec and kubelet say of it
// beyond placement: the facts the Descheduler (core/deschedule) decides on
// — who owns the pod, what it mounts, its QoS class, its phase and its
// containers' restarts and states. The scheduler does not read it.
type PodRuntime struct {
	// Owners are the pod's metadata.ownerReferences, in order.
	Owners []OwnerReference
	// Annotations are the pod's metadata.annotations.
	Annotations map[string]string
	// Images are the pod's containers' images (spec.containers), in order.
	Images []string
	// LocalStorage says a volume is an emptyDir or a hostPath.
	LocalStorage bool
	// PVCClaims names the PersistentVolumeClaims the pod's volumes use.
	PVCClaims []string
	// QOSClass is kube's QoS class of the pod (status.qosClass, computed
	// from requests and limits when absent).
	QOSClass QOSClass
	// Phase is status.phase; "" is Running for a bound pod.
	Phase PodPhase
	// Reason is status.reason ("Evicted", "NodeLost", ...).
	Reason string
	// Containers are status.containerStatuses then
	// status.initContainerStatuses (Init set).
	Containers []ContainerStatus
}

// OwnerReference is one of a pod's owners.
type OwnerReference struct {
	Kind, Name, UID string
	Controller      bool
}

// QOSClass is kube's pod QoS class.
type QOSClass string

const (
	QOSGuaranteed QOSClass = "Guaranteed"
	QOSBurstable  QOSClass = "Burstable"
	QOSBestEffort QOSClass = "BestEffort"
)

// PodPhase is kube's pod phase.
type PodPhase string

const (
	PodPending   PodPhase = "Pending"
	PodRunning   PodPhase = "Running"
	PodSucceeded PodPhase = "Succeeded"
	PodFailed    PodPhase = "Failed"
	PodUnknown   PodPhase = "Unknown"
)

// ContainerStatus is the kubelet's report of one container.
type ContainerStatus struct {
	Name         string
	Init         bool
	RestartCount int32
	// WaitingReason and TerminatedReason are the current state's reason
	// (state.waiting.reason, state.terminated.reason), "" when not in it.
	WaitingReason    string
	TerminatedReason string
	// ExitCode is state.terminated.exitCode; nil when not terminated.
	ExitCode *int32
}

// EffectivePhase is the pod's phase, Running for a bound pod that reports
// none (as the API server's defaulting leaves a started pod).
func (r *PodRuntime) EffectivePhase() PodPhase {
	if r == nil || r.Phase == "" {
		return PodRunning
	}
	return r.Phase
}
