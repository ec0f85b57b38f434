// Package noderesources holds the two resource plugins, which share their
// scoring machinery as in kube-scheduler:
//
//   - NodeResourcesFit filters nodes without room for the pod's effective
//     requests (cpu, memory, ephemeral-storage, extended resources, the pod
//     count) and scores the room left with the configured strategy:
//     LeastAllocated (default), MostAllocated or RequestedToCapacityRatio.
//   - NodeResourcesBalancedAllocation scores how the pod changes the balance
//     between the node's resource fractions.
//
// Pod requests come from model.ComputeRequests (init containers, sidecars,
// overhead); node usage from framework.NodeInfo. Scoring cpu and memory for
// NodeResourcesFit counts containers without requests at kube's defaults
// (NonZeroRequested); BalancedAllocation uses the exact requests.
package noderesources
