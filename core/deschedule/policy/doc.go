// Package policy reads a Descheduler policy (descheduler/v1alpha2
// DeschedulerPolicy) as the Descheduler v0.36 reads it: strict decoding,
// each plugin's args validated and defaulted, the DefaultEvictor put into
// every profile, its priorityThreshold resolved to a value. Every error is
// a *FieldError naming the field ("profiles[0].pluginConfig[1].args.
// thresholds").
//
// Data comes from a file (berthd --descheduler-policy, core/parity's
// corpus); the Policy goes to core/deschedule, which runs it.
//
// Where Berth differs: RemoveFailedPods, metrics-based utilization
// (metricsUtilization, metricsCollector, metricsProviders) and
// PodLifeTime's conditions are refused with an error saying Berth does not
// support them, rather than accepted and ignored; unknown fields are
// errors (the Descheduler's decoder is strict too).
package policy
