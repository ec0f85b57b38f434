// Package config reads a kube-scheduler configuration
// (kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration) and turns it
// into the effective configuration Berth runs: the same profiles, plugins,
// weights and plugin args kube-scheduler 1.37 would run, defaulted and
// validated the way kube-scheduler does it.
//
// Data comes from a YAML or JSON document (a user's file, or the
// KubeSchedulerConfiguration found by core/manifest) and goes to the
// scheduler, which builds one framework (core/framework/runtime) per
// profile. Load decodes strictly (unknown or duplicate fields are errors),
// merges each profile's plugins into kube's default profile, defaults the
// plugin args kube defaults at load time and validates. Default returns the
// default profile alone.
//
// Plugins are listed per extension point and under multiPoint, exactly as
// the user wrote them merged into the defaults; which extension points a
// multiPoint plugin joins depends on the interfaces it implements, so the
// runtime expands multiPoint when it instantiates the plugins
// (runtime.Framework.ListPlugins shows the result).
//
// What Berth leaves out, and how a configuration that names it is treated:
//   - Plugins that only make sense inside Kubernetes (volume plugins,
//     NodeDeclaredFeatures, the workload
//     plugins) are not part of the default profile. Enabling one is an error
//     saying why Berth does not implement it. Disabling one is accepted and
//     changes nothing (it is absent anyway), so that a kube configuration
//     that disables, say, VolumeZone loads unchanged. Args given for one
//     in pluginConfig are accepted and dropped, as kube ignores the args of
//     plugins that are not enabled.
//   - Any other plugin name Berth does not know is an error, wherever it
//     appears (enabled, disabled or pluginConfig).
//   - Extenders (HTTP webhooks) and the placementGenerate/placementScore
//     extension points (alpha workload scheduling) are rejected. Settings
//     about running inside a cluster (leaderElection, clientConnection,
//     profiling, delayCacheUntilActive) are accepted and ignored.
//   - A negative score weight is an error (kube accepts it and subtracts);
//     a weight of 0 means "unset" and counts as 1, as in kube.
//
// Plugin args are kept as raw JSON per plugin name: each plugin decodes,
// defaults and validates its own args when the framework builds it, so an
// out-of-range value is reported then, naming the plugin and the field.
package config
