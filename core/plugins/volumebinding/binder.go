package volumebinding

import (
	"fmt"
	"math"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/volume"
)

// Reasons of unbound claims, in kube's words.
const (
	ErrReasonBindConflict   = "node(s) didn't find available persistent volumes to bind"
	ErrReasonNotEnoughSpace = "node(s) did not have enough free storage"
)

// podVolumes is what Filter found on a node for the pod's unbound claims:
// volumes to bind them to and claims to provision.
type podVolumes struct {
	static     []staticBinding
	provisions []provision
}

type staticBinding struct {
	pv  *corev1.PersistentVolume
	pvc *corev1.PersistentVolumeClaim
}

type provision struct {
	pvc *corev1.PersistentVolumeClaim
	// capacity is the CSIStorageCapacity that admitted it, nil when the
	// driver does not report capacity.
	capacity *storagev1.CSIStorageCapacity
}

func storageOf(c *corev1.PersistentVolumeClaim) resource.Quantity {
	return c.Spec.Resources.Requests[corev1.ResourceStorage]
}

// findPodVolumes is kube's FindPodVolumes for the unbound claims of
// delayed binding (the bound ones are checkBound's): the reasons the node
// does not fit, or the bindings and provisions it would take.
func (pl *VolumeBinding) findPodVolumes(s *stateData, node *model.Node) (*podVolumes, []string, error) {
	out := &podVolumes{}
	var toMatch, toProvision []*corev1.PersistentVolumeClaim
	for _, c := range s.unboundDelayed {
		if sel, ok := c.Annotations[volume.AnnSelectedNode]; ok {
			if sel != node.Name {
				return nil, []string{ErrReasonBindConflict}, nil
			}
			toProvision = append(toProvision, c)
			continue
		}
		toMatch = append(toMatch, c)
	}
	if len(toMatch) > 0 {
		unmatched := pl.findMatchingVolumes(s, toMatch, node, out)
		toProvision = append(toProvision, unmatched...)
	}
	if len(toProvision) > 0 {
		satisfied, sufficient, err := pl.checkProvisions(s, toProvision, node, out)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case !satisfied:
			return nil, []string{ErrReasonBindConflict}, nil
		case !sufficient:
			return nil, []string{ErrReasonNotEnoughSpace}, nil
		}
	}
	return out, nil, nil
}

// findMatchingVolumes gives each claim, smallest request first, the
// smallest available volume that fits it on the node (kube's
// FindMatchingVolume); it returns the claims no volume fits.
func (pl *VolumeBinding) findMatchingVolumes(s *stateData, claims []*corev1.PersistentVolumeClaim, node *model.Node, out *podVolumes) []*corev1.PersistentVolumeClaim {
	claims = slices.Clone(claims)
	sort.SliceStable(claims, func(i, j int) bool {
		a, b := storageOf(claims[i]), storageOf(claims[j])
		return a.Cmp(b) < 0
	})
	chosen := map[string]bool{}
	var unmatched []*corev1.PersistentVolumeClaim
	for _, c := range claims {
		pv := matchingVolume(c, s.classVolumes[volume.ClaimClass(c)], node.Labels, chosen)
		if pv == nil {
			unmatched = append(unmatched, c)
			continue
		}
		chosen[pv.Name] = true
		out.static = append(out.static, staticBinding{pv: pv, pvc: c})
	}
	return unmatched
}

// matchingVolume is the volume a claim takes on a node with these labels:
// one already reserved for it (if its node affinity admits the node), else
// the smallest available one of its class that is big enough, of its
// volume mode and access modes, matching its selector and admitting the
// node; nil when none.
func matchingVolume(c *corev1.PersistentVolumeClaim, volumes []*corev1.PersistentVolume, nodeLabels map[string]string, excluded map[string]bool) *corev1.PersistentVolume {
	requested := storageOf(c)
	var selector labels.Selector
	if c.Spec.Selector != nil {
		sel, err := metav1.LabelSelectorAsSelector(c.Spec.Selector)
		if err != nil {
			return nil
		}
		selector = sel
	}
	var smallest *corev1.PersistentVolume
	var smallestQty resource.Quantity
	for _, pv := range volumes {
		if excluded[pv.Name] {
			continue
		}
		if pv.Spec.ClaimRef != nil && !volume.BoundToClaim(pv, c) {
			continue
		}
		qty := pv.Spec.Capacity[corev1.ResourceStorage]
		if qty.Cmp(requested) < 0 || volumeModeOf(c.Spec.VolumeMode) != volumeModeOf(pv.Spec.VolumeMode) ||
			pv.Spec.VolumeAttributesClassName != nil && *pv.Spec.VolumeAttributesClassName != "" || pv.DeletionTimestamp != nil {
			continue
		}
		admits := nodeAffinityAdmits(pv, nodeLabels)
		if volume.BoundToClaim(pv, c) {
			if !admits {
				return nil
			}
			return pv
		}
		if pv.Status.Phase != corev1.VolumeAvailable || selector != nil && !selector.Matches(labels.Set(pv.Labels)) ||
			pv.Spec.StorageClassName != volume.ClaimClass(c) || !admits || !accessModesCovered(c, pv) {
			continue
		}
		if smallest == nil || smallestQty.Cmp(qty) > 0 {
			smallest, smallestQty = pv, qty
		}
	}
	return smallest
}

func volumeModeOf(m *corev1.PersistentVolumeMode) corev1.PersistentVolumeMode {
	if m == nil {
		return corev1.PersistentVolumeFilesystem
	}
	return *m
}

// accessModesCovered reports whether the volume offers every access mode
// the claim asks for.
func accessModesCovered(c *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume) bool {
	for _, m := range c.Spec.AccessModes {
		if !slices.Contains(pv.Spec.AccessModes, m) {
			return false
		}
	}
	return true
}

// classProvisioning is what provisioning a class's claims needs, read
// once per attempt (PreFilter): the class (nil if unknown), whether its
// driver reports capacity, and then the class's capacity objects with
// their node selectors, by namespace/name.
type classProvisioning struct {
	class         *storagev1.StorageClass
	checkCapacity bool
	capacities    []capacityOf
}

type capacityOf struct {
	c     *storagev1.CSIStorageCapacity
	nodes labels.Selector
	limit *resource.Quantity // maximum volume size, else capacity; nil: none
}

// provisioningOf reads a class's provisioning data from the tracker.
func (pl *VolumeBinding) provisioningOf(name string) *classProvisioning {
	class, ok := pl.t.Class(name)
	if !ok {
		return &classProvisioning{}
	}
	p := &classProvisioning{class: class}
	d, ok := pl.t.Driver(class.Provisioner)
	if !ok || d.Spec.StorageCapacity == nil || !*d.Spec.StorageCapacity {
		return p
	}
	p.checkCapacity = true
	for _, c := range pl.t.Capacities() {
		if c.StorageClassName != class.Name || c.NodeTopology == nil {
			continue // a capacity without topology is reachable from no node
		}
		sel, err := metav1.LabelSelectorAsSelector(c.NodeTopology)
		if err != nil {
			continue
		}
		p.capacities = append(p.capacities, capacityOf{c: c, nodes: sel, limit: largestVolume(c)})
	}
	return p
}

// largestVolume is the largest volume a capacity object allows, as kube's
// volumeLimit: its maximum volume size, else its capacity; nil if neither.
func largestVolume(c *storagev1.CSIStorageCapacity) *resource.Quantity {
	if c.MaximumVolumeSize != nil {
		return c.MaximumVolumeSize
	}
	return c.Capacity
}

// checkProvisions is kube's checkVolumeProvisions: each claim's class
// must have a provisioner, allow the node's topology, and, when its CSI
// driver reports storage capacity, have a capacity object reachable from
// the node with room for the claim.
func (pl *VolumeBinding) checkProvisions(s *stateData, claims []*corev1.PersistentVolumeClaim, node *model.Node, out *podVolumes) (satisfied, sufficient bool, err error) {
	for _, c := range claims {
		name := volume.ClaimClass(c)
		if name == "" {
			return false, false, fmt.Errorf("no class for claim %q", volume.Key(c.Namespace, c.Name))
		}
		p := s.provisioning[name]
		if p == nil || p.class == nil {
			return false, false, fmt.Errorf("failed to find storage class %q", name)
		}
		class := p.class
		if class.Provisioner == "" || class.Provisioner == volume.NoProvisioner {
			return false, true, nil
		}
		if !topologyAdmits(class.AllowedTopologies, node.Labels) {
			return false, true, nil
		}
		enough, capacity := enoughCapacity(p, c, node.Labels)
		if !enough {
			return true, false, nil
		}
		out.provisions = append(out.provisions, provision{pvc: c, capacity: capacity})
	}
	return true, true, nil
}

// topologyAdmits is kube's MatchTopologySelectorTerms: no terms admit any
// node; else some term's every requirement must hold.
func topologyAdmits(terms []corev1.TopologySelectorTerm, nodeLabels map[string]string) bool {
	if len(terms) == 0 {
		return true
	}
	for _, t := range terms {
		ok := true
		for _, r := range t.MatchLabelExpressions {
			v, has := nodeLabels[r.Key]
			if !has || !slices.Contains(r.Values, v) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// enoughCapacity is kube's hasEnoughCapacity: a driver that does not
// report capacity (or is unknown) has room; else the first capacity of the
// class (by namespace/name) reachable from the node whose limit (maximum
// volume size, else capacity) holds the claim.
func enoughCapacity(p *classProvisioning, c *corev1.PersistentVolumeClaim, nodeLabels map[string]string) (bool, *storagev1.CSIStorageCapacity) {
	q, ok := c.Spec.Resources.Requests[corev1.ResourceStorage]
	if !ok || !p.checkCapacity {
		return true, nil
	}
	set := labels.Set(nodeLabels)
	for _, capacity := range p.capacities {
		if capacity.limit == nil || capacity.limit.Value() < q.Value() || !capacity.nodes.Matches(set) {
			continue
		}
		return true, capacity.c
	}
	return false, nil
}

// shapePoint is a point of the capacity score's shape, the score scaled
// to 0..100.
type shapePoint struct{ utilization, score int64 }

// score is kube's StorageCapacityScoring: the volumes chosen, grouped by
// class (requested against the volumes' capacity), or, when none is, the
// claims to provision against their capacity objects; each class scored
// by the shape at its utilization, the node by the rounded mean.
func (pl *VolumeBinding) score(pv *podVolumes) int64 {
	type use struct{ requested, capacity int64 }
	classes := map[string]*use{}
	at := func(class string) *use {
		u, ok := classes[class]
		if !ok {
			u = &use{}
			classes[class] = u
		}
		return u
	}
	if len(pv.static) > 0 {
		for _, b := range pv.static {
			u := at(b.pv.Spec.StorageClassName)
			q, c := storageOf(b.pvc), b.pv.Spec.Capacity[corev1.ResourceStorage]
			u.requested += q.Value()
			u.capacity += c.Value()
		}
	} else {
		for _, p := range pv.provisions {
			if p.capacity == nil || p.capacity.Capacity == nil {
				continue
			}
			u := at(*p.pvc.Spec.StorageClassName)
			u.capacity = p.capacity.Capacity.Value() // the class's capacity on the node, not a sum
			q := storageOf(p.pvc)
			u.requested += q.Value()
		}
	}
	if len(classes) == 0 {
		return 0
	}
	var total int64
	for _, u := range classes {
		utilization := int64(maxUtilization)
		if u.capacity != 0 && u.requested <= u.capacity {
			utilization = u.requested * maxUtilization / u.capacity
		}
		total += shapeAt(pl.shape, utilization)
	}
	return int64(math.Round(float64(total) / float64(len(classes))))
}

const maxUtilization = 100

// shapeAt is the broken linear function through the shape's points.
func shapeAt(shape []shapePoint, p int64) int64 {
	for i, pt := range shape {
		if p <= pt.utilization {
			if i == 0 {
				return shape[0].score
			}
			prev := shape[i-1]
			return prev.score + (pt.score-prev.score)*(p-prev.utilization)/(pt.utilization-prev.utilization)
		}
	}
	return shape[len(shape)-1].score
}
