package names

// Plugins Berth implements.
const (
	PrioritySort                    = "PrioritySort"
	SchedulingGates                 = "SchedulingGates"
	NodeUnschedulable               = "NodeUnschedulable"
	NodeName                        = "NodeName"
	TaintToleration                 = "TaintToleration"
	NodeAffinity                    = "NodeAffinity"
	NodePorts                       = "NodePorts"
	NodeResourcesFit                = "NodeResourcesFit"
	NodeResourcesBalancedAllocation = "NodeResourcesBalancedAllocation"
	PodTopologySpread               = "PodTopologySpread"
	InterPodAffinity                = "InterPodAffinity"
	DefaultPreemption               = "DefaultPreemption"
	DefaultBinder                   = "DefaultBinder"
	// VolumeBinding scores 0 for pods without volume claims, which are
	// all Berth knows (core/plugins/volumebinding).
	VolumeBinding = "VolumeBinding"
)

// Plugins of kube-scheduler's default profile that only make sense inside
// Kubernetes (volumes, images, dynamic resources, node feature discovery).
// Berth does not implement them; the configuration loader names them when a
// user's file refers to one.
const (
	VolumeRestrictions   = "VolumeRestrictions"
	NodeVolumeLimits     = "NodeVolumeLimits"
	VolumeZone           = "VolumeZone"
	ImageLocality        = "ImageLocality"
	DynamicResources     = "DynamicResources"
	NodeDeclaredFeatures = "NodeDeclaredFeatures"
	GangScheduling       = "GangScheduling"
)
