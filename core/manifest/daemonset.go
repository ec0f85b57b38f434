package manifest

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/model"
)

// A DaemonSet is expanded into one pending pod per node it should run on,
// as the DaemonSet controller creates them: the template with the
// tolerations the controller adds (NoExecute not-ready and unreachable,
// NoSchedule disk-pressure, memory-pressure, pid-pressure and
// unschedulable, and network-unavailable for host-network pods), the
// labels controller-revision-hash (a stable template hash here) and
// pod-template-generation "1", and a required node affinity replaced by
// matchFields metadata.name In [node], so that the scheduler puts it on
// that node. A node qualifies when the template's nodeName (if any) is
// the node, its nodeSelector and required node affinity match the node,
// and the pod tolerates the node's NoSchedule and NoExecute taints. Nodes
// already holding a pod of the manifests that the DaemonSet controls get
// none. Pods are named <daemonset>-<5 characters hashed from the
// DaemonSet's and the node's names> (the controller's are random).

// daemonTolerations are the tolerations the DaemonSet controller adds to
// every pod it creates.
func daemonTolerations(hostNetwork bool) []corev1.Toleration {
	out := []corev1.Toleration{
		{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: corev1.TaintNodeDiskPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeMemoryPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodePIDPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	}
	if hostNetwork {
		out = append(out, corev1.Toleration{Key: corev1.TaintNodeNetworkUnavailable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	return out
}

// addOrUpdateToleration adds t to ts unless a toleration with the same
// key, operator, value and effect is there; such a one is replaced by t.
func addOrUpdateToleration(ts []corev1.Toleration, t corev1.Toleration) []corev1.Toleration {
	for i := range ts {
		if ts[i].Key == t.Key && ts[i].Operator == t.Operator && ts[i].Value == t.Value && ts[i].Effect == t.Effect {
			ts[i] = t
			return ts
		}
	}
	return append(ts, t)
}

// Labels the DaemonSet controller puts on its pods.
const (
	daemonSetRevisionLabel   = appsv1.DefaultDaemonSetUniqueLabelKey // controller-revision-hash
	daemonSetGenerationLabel = "pod-template-generation"
)

func (b *builder) addDaemonSet(e *entry, ds *appsv1.DaemonSet) error {
	if _, err := controllerSelector(e, ds.Spec.Selector, &ds.Spec.Template, "DaemonSet"); err != nil {
		return err
	}
	template := ds.Spec.Template.DeepCopy()
	for _, t := range daemonTolerations(template.Spec.HostNetwork) {
		template.Spec.Tolerations = addOrUpdateToleration(template.Spec.Tolerations, t)
	}
	// The template as a pod, to decide which nodes qualify.
	probe, ferr := convertPod(podFromTemplate(template, ds.Namespace, ds.Name, nil))
	if ferr != nil {
		return e.fail(joinField("spec.template", ferr.field), ferr.err)
	}
	var owned map[string]bool
	if w := b.byKey[ownerKey{"DaemonSet", namespaceOr(ds.Namespace), ds.Name}]; w != nil {
		owned = w.ownedNodes
	}
	extra := map[string]string{
		daemonSetRevisionLabel:   templateHash(&ds.Spec.Template),
		daemonSetGenerationLabel: "1",
	}
	for _, node := range b.cluster.Nodes {
		if owned[node.Name] || !daemonShouldRun(probe, template.Spec.NodeName, node) {
			continue
		}
		pod := podFromTemplate(template, ds.Namespace, ds.Name+"-"+suffix(ds.Name, node.Name), extra)
		pod.Spec.Affinity = pinToNode(pod.Spec.Affinity, node.Name)
		if err := b.addPod(e, pod, "spec.template"); err != nil {
			return err
		}
	}
	return nil
}

// daemonShouldRun reports whether the DaemonSet controller creates a pod
// for node: the template's nodeName, nodeSelector and required node
// affinity match it and its NoSchedule and NoExecute taints are tolerated.
func daemonShouldRun(pod *model.Pod, nodeName string, node *model.Node) bool {
	if nodeName != "" && nodeName != node.Name {
		return false
	}
	for k, v := range pod.NodeSelector {
		if lv, ok := node.Labels[k]; !ok || lv != v {
			return false
		}
	}
	if a := pod.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.Required != nil && !a.NodeAffinity.Required.Matches(node) {
		return false
	}
	_, untolerated := model.FirstUntolerated(node.Taints, pod.Tolerations, func(t *model.Taint) bool {
		return t.Effect == model.TaintEffectNoSchedule || t.Effect == model.TaintEffectNoExecute
	})
	return !untolerated
}

// pinToNode replaces the required node affinity by "metadata.name In
// [node]", keeping the rest of the affinity.
func pinToNode(a *corev1.Affinity, node string) *corev1.Affinity {
	required := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
		MatchFields: []corev1.NodeSelectorRequirement{{Key: metav1.ObjectNameField, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}},
	}}}
	if a == nil {
		a = &corev1.Affinity{}
	}
	if a.NodeAffinity == nil {
		a.NodeAffinity = &corev1.NodeAffinity{}
	}
	a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = required
	return a
}
