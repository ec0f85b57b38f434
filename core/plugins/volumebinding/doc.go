// Package volumebinding is kube-scheduler's VolumeBinding plugin as far as
// Berth models volumes: not at all yet. Berth holds no PersistentVolumes or
// PersistentVolumeClaims, so to it every pod is one without claims. For
// such a pod kube 1.37 filters nothing and, with StorageCapacityScoring on
// (beta, the default), scores every feasible node 0; the plugin is in the
// default profile so that traces and totals read as kube's
// (pluginScores carries "VolumeBinding":0). When volumes are modelled the
// Filter, Reserve and capacity score of kube join it here.
package volumebinding
