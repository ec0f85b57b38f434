package dra

import (
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
)

// Features are the DRA features of kube-scheduler 1.36 by default: admin
// access and prioritized lists (GA), partitionable devices, device taints,
// consumable capacity, binding conditions with device status (beta, on);
// list-type attributes are alpha and off.
func Features() structured.Features {
	return structured.Features{
		AdminAccess:            true,
		PrioritizedList:        true,
		PartitionableDevices:   true,
		DeviceTaints:           true,
		DeviceBindingAndStatus: true,
		ConsumableCapacity:     true,
	}
}

// celFeatures are the CEL environment's features matching Features.
func celFeatures() cel.Features {
	return cel.Features{EnableConsumableCapacity: Features().ConsumableCapacity}
}

// celCacheSize is the number of compiled selectors kept; kube-scheduler
// keeps 10 per plugin, Berth a few more since validation and allocation
// share the cache.
const celCacheSize = 64

// NewCELCache returns a cache of compiled selectors for Features.
func NewCELCache() *cel.Cache { return cel.NewCache(celCacheSize, celFeatures()) }
