package admission

import (
	"maps"
	"slices"
	"strings"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
)

// AdmissionGate is the scheduling gate Kueue holds a workload's pods
// with until the workload is admitted.
const AdmissionGate = "kueue.x-k8s.io/admission"

// ApplyToPods returns pods with Kueue's effect on the pods of workloads
// made for pods (quota.Workload.Pods): a workload not admitted keeps its
// pods gated; an admitted one releases them with its flavors' node labels
// added to the node selector and their tolerations appended, as Kueue
// injects them, and only as many as were admitted (partial admission
// lowers a Job's parallelism: the others are not created). The running
// pods of a preempted workload (quota.Workload.Running) are evicted: left
// out. Other pods are returned as they are; changed pods are copies.
func ApplyToPods(objs *quota.Objects, lines []Line, pods []*model.Pod) []*model.Pod {
	if objs == nil {
		return pods
	}
	flavors := map[string]*quota.ResourceFlavor{}
	for _, f := range objs.Flavors {
		flavors[f.Name] = f
	}
	byKey := map[string]Line{}
	for _, l := range lines {
		byKey[l.Workload] = l
	}
	podLine := map[string]Line{}
	podSet := map[string]string{}
	dropped := map[string]bool{}
	for _, w := range objs.Workloads {
		l := byKey[w.Key()]
		if l.Result == ResultPreempted {
			for _, p := range w.Running {
				dropped[p] = true // evicted: its quota went to the preemptor
			}
		}
		admitted := len(w.Pods)
		if l.Result == ResultAdmitted && len(w.PodSets) > 0 {
			if c, ok := l.Counts[w.PodSets[0].Name]; ok {
				admitted = int(c)
			}
		}
		for i, p := range w.Pods {
			podLine[p] = l
			if ps, ok := w.PodSetOf[p]; ok {
				podSet[p] = ps
			} else if len(w.PodSets) > 0 {
				podSet[p] = w.PodSets[0].Name
			}
			if i >= admitted {
				dropped[p] = true
			}
		}
	}
	out := make([]*model.Pod, 0, len(pods))
	for _, p := range pods {
		l, ok := podLine[p.Key()]
		if !ok {
			out = append(out, p)
			continue
		}
		if dropped[p.Key()] {
			continue
		}
		if l.Result != ResultAdmitted {
			out = append(out, Gated(p))
			continue
		}
		var fs []*quota.ResourceFlavor
		for _, k := range slices.Sorted(maps.Keys(l.Flavors)) {
			if !strings.HasPrefix(k, podSet[p.Key()]+"/") {
				continue // another pod set's flavor
			}
			if f := flavors[l.Flavors[k]]; f != nil {
				fs = append(fs, f)
			}
		}
		out = append(out, Released(p, fs))
	}
	return out
}

// Gated is pod held for admission: a copy with AdmissionGate added, or pod
// itself when it has the gate already.
func Gated(pod *model.Pod) *model.Pod {
	if slices.Contains(pod.SchedulingGates, AdmissionGate) {
		return pod
	}
	c := *pod
	c.SchedulingGates = append(slices.Clone(pod.SchedulingGates), AdmissionGate)
	return &c
}

// Released is pod of an admitted workload as Kueue releases it: a copy
// with the node labels of its pod set's flavors (in the order given) added
// to its node selector and their tolerations appended. AdmissionGate is
// not in it: a pod is released from the gate the controller added, not
// from gates of its own.
func Released(p *model.Pod, flavors []*quota.ResourceFlavor) *model.Pod {
	c := *p
	c.NodeSelector = maps.Clone(p.NodeSelector)
	c.Tolerations = slices.Clone(p.Tolerations)
	for _, f := range flavors {
		for lk, lv := range f.NodeLabels {
			if c.NodeSelector == nil {
				c.NodeSelector = map[string]string{}
			}
			c.NodeSelector[lk] = lv
		}
		c.Tolerations = addTolerations(c.Tolerations, f.Tolerations)
	}
	return &c
}
