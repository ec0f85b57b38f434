package dra

import (
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
)

// Features are the DRA features of kube-scheduler 1.37 by default (as
// 1.36's): admin access, prioritized lists, device taints and device status
// (GA), partitionable devices, consumable capacity, binding conditions
// (beta, on); list-type attributes, fractional capacity ranges, derived
// attributes and compatibility groups are alpha and off.
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
