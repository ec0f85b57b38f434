// Package tainttoleration is the TaintToleration Filter and Score plugin.
// Filter keeps pods off nodes with a NoSchedule or NoExecute taint they do
// not tolerate. Score counts the PreferNoSchedule taints a pod does not
// tolerate, and NormalizeScore reverses the count so the node with the
// fewest scores 100.
package tainttoleration
