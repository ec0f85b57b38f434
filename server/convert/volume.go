package convert

import (
	"errors"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/fieldpath"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/volume"
)

// The storage objects are converted to Kubernetes' own types (core/v1 and
// storage.k8s.io/v1), which core/volume validates with kube-apiserver's
// rules; its paths, kube's JSON names, are translated to the proto's.

// Field names of the storage kinds in Object and in paths.
const (
	fieldPV         = "persistent_volume"
	fieldPVC        = "persistent_volume_claim"
	fieldClass      = "storage_class"
	fieldCSINode    = "csi_node"
	fieldCSIDriver  = "csi_driver"
	fieldCapacity   = "csi_storage_capacity"
	storageQuantity = corev1.ResourceStorage
)

// volumeKinds maps the wire kinds of storage objects to core/volume's.
var volumeKinds = map[berthv1.ObjectKind]string{
	berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME:       volume.KindPersistentVolume,
	berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM: volume.KindPersistentVolumeClaim,
	berthv1.ObjectKind_OBJECT_KIND_STORAGE_CLASS:           volume.KindStorageClass,
	berthv1.ObjectKind_OBJECT_KIND_CSI_NODE:                volume.KindCSINode,
	berthv1.ObjectKind_OBJECT_KIND_CSI_DRIVER:              volume.KindCSIDriver,
	berthv1.ObjectKind_OBJECT_KIND_CSI_STORAGE_CAPACITY:    volume.KindCSIStorageCapacity,
}

// VolumeKind is core/volume's name of a wire storage kind; false for other
// kinds.
func VolumeKind(kind berthv1.ObjectKind) (string, bool) {
	k, ok := volumeKinds[kind]
	return k, ok
}

// volumeKindOf is the wire kind of a storage object.
func volumeKindOf(obj any) berthv1.ObjectKind {
	switch obj.(type) {
	case *corev1.PersistentVolume:
		return berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME
	case *corev1.PersistentVolumeClaim:
		return berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM
	case *storagev1.StorageClass:
		return berthv1.ObjectKind_OBJECT_KIND_STORAGE_CLASS
	case *storagev1.CSINode:
		return berthv1.ObjectKind_OBJECT_KIND_CSI_NODE
	case *storagev1.CSIDriver:
		return berthv1.ObjectKind_OBJECT_KIND_CSI_DRIVER
	case *storagev1.CSIStorageCapacity:
		return berthv1.ObjectKind_OBJECT_KIND_CSI_STORAGE_CAPACITY
	}
	return berthv1.ObjectKind_OBJECT_KIND_UNSPECIFIED
}

func volumeMeta(obj any) metav1.ObjectMeta {
	if o, ok := obj.(metav1.Object); ok {
		return metav1.ObjectMeta{Namespace: o.GetNamespace(), Name: o.GetName()}
	}
	return metav1.ObjectMeta{}
}

var accessModes = map[berthv1.PersistentVolumeAccessMode]corev1.PersistentVolumeAccessMode{
	berthv1.PersistentVolumeAccessMode_PERSISTENT_VOLUME_ACCESS_MODE_READ_WRITE_ONCE:     corev1.ReadWriteOnce,
	berthv1.PersistentVolumeAccessMode_PERSISTENT_VOLUME_ACCESS_MODE_READ_ONLY_MANY:      corev1.ReadOnlyMany,
	berthv1.PersistentVolumeAccessMode_PERSISTENT_VOLUME_ACCESS_MODE_READ_WRITE_MANY:     corev1.ReadWriteMany,
	berthv1.PersistentVolumeAccessMode_PERSISTENT_VOLUME_ACCESS_MODE_READ_WRITE_ONCE_POD: corev1.ReadWriteOncePod,
}

func accessModesFromProto(p path, in []berthv1.PersistentVolumeAccessMode) ([]corev1.PersistentVolumeAccessMode, *FieldError) {
	out := make([]corev1.PersistentVolumeAccessMode, 0, len(in))
	for i, m := range in {
		k, ok := accessModes[m]
		if !ok {
			return nil, p.index(i).errorf("unknown value %s", m)
		}
		out = append(out, k)
	}
	return out, nil
}

func accessModesToProto(in []corev1.PersistentVolumeAccessMode) []berthv1.PersistentVolumeAccessMode {
	var out []berthv1.PersistentVolumeAccessMode
	for _, m := range in {
		for w, k := range accessModes {
			if k == m {
				out = append(out, w)
			}
		}
	}
	return out
}

func volumeModeFromProto(p path, m berthv1.PersistentVolumeMode) (*corev1.PersistentVolumeMode, *FieldError) {
	switch m {
	case berthv1.PersistentVolumeMode_PERSISTENT_VOLUME_MODE_UNSPECIFIED:
		return nil, nil
	case berthv1.PersistentVolumeMode_PERSISTENT_VOLUME_MODE_FILESYSTEM:
		return new(corev1.PersistentVolumeFilesystem), nil
	case berthv1.PersistentVolumeMode_PERSISTENT_VOLUME_MODE_BLOCK:
		return new(corev1.PersistentVolumeBlock), nil
	}
	return nil, p.errorf("unknown value %s", m)
}

func volumeModeToProto(m *corev1.PersistentVolumeMode) berthv1.PersistentVolumeMode {
	switch {
	case m == nil:
		return berthv1.PersistentVolumeMode_PERSISTENT_VOLUME_MODE_UNSPECIFIED
	case *m == corev1.PersistentVolumeBlock:
		return berthv1.PersistentVolumeMode_PERSISTENT_VOLUME_MODE_BLOCK
	}
	return berthv1.PersistentVolumeMode_PERSISTENT_VOLUME_MODE_FILESYSTEM
}

func bytesQuantity(n int64) resource.Quantity { return *resource.NewQuantity(n, resource.BinarySI) }

func persistentVolume(p path, in *berthv1.PersistentVolume) (*corev1.PersistentVolume, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	out := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: in.GetName(), Labels: in.GetLabels()}}
	spec := &out.Spec
	if in.GetCapacityBytes() != 0 {
		spec.Capacity = corev1.ResourceList{storageQuantity: bytesQuantity(in.GetCapacityBytes())}
	}
	var fe *FieldError
	if spec.AccessModes, fe = accessModesFromProto(p.field("access_modes"), in.GetAccessModes()); fe != nil {
		return nil, fe
	}
	spec.StorageClassName = in.GetStorageClassName()
	if r := in.GetClaimRef(); r != nil {
		spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: r.GetNamespace(), Name: r.GetName(), UID: types.UID(r.GetUid())}
	}
	if in.GetNodeAffinity() != nil {
		sel, fe := nodeSelector(p.field("node_affinity"), in.GetNodeAffinity())
		if fe != nil {
			return nil, fe
		}
		spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: kubeNodeSelector(sel)}
	}
	if spec.VolumeMode, fe = volumeModeFromProto(p.field("volume_mode"), in.GetVolumeMode()); fe != nil {
		return nil, fe
	}
	if csi := in.GetCsi(); csi != nil {
		spec.CSI = &corev1.CSIPersistentVolumeSource{Driver: csi.GetDriver(), VolumeHandle: csi.GetVolumeHandle()}
	}
	switch in.GetPhase() {
	case berthv1.PersistentVolumePhase_PERSISTENT_VOLUME_PHASE_UNSPECIFIED:
		out.Status.Phase = corev1.VolumeAvailable
	default:
		name := strings.TrimPrefix(in.GetPhase().String(), "PERSISTENT_VOLUME_PHASE_")
		out.Status.Phase = corev1.PersistentVolumePhase(upperCamel(name))
	}
	if in.GetTerminating() {
		out.DeletionTimestamp = &metav1.Time{}
	}
	return out, volumeError(p, volume.Validate(out))
}

// upperCamel turns an enum's tail ("WAIT_FOR_FIRST_CONSUMER") into
// Kubernetes' spelling ("WaitForFirstConsumer").
func upperCamel(s string) string {
	var b strings.Builder
	for _, w := range strings.Split(strings.ToLower(s), "_") {
		if w == "" {
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

func claimSpecFromProtoPVC(p path, in *berthv1.PersistentVolumeClaim) (corev1.PersistentVolumeClaimSpec, *FieldError) {
	var spec corev1.PersistentVolumeClaimSpec
	var fe *FieldError
	if spec.AccessModes, fe = accessModesFromProto(p.field("access_modes"), in.GetAccessModes()); fe != nil {
		return spec, fe
	}
	if in.GetRequestBytes() != 0 {
		spec.Resources.Requests = corev1.ResourceList{storageQuantity: bytesQuantity(in.GetRequestBytes())}
	}
	if in.StorageClassName != nil {
		spec.StorageClassName = new(in.GetStorageClassName())
	}
	spec.VolumeName = in.GetVolumeName()
	if in.GetSelector() != nil {
		sel, fe := labelSelector(p.field("selector"), in.GetSelector())
		if fe != nil {
			return spec, fe
		}
		spec.Selector = volume.KubeLabelSelector(sel)
	}
	if spec.VolumeMode, fe = volumeModeFromProto(p.field("volume_mode"), in.GetVolumeMode()); fe != nil {
		return spec, fe
	}
	return spec, nil
}

func persistentVolumeClaim(p path, in *berthv1.PersistentVolumeClaim) (*corev1.PersistentVolumeClaim, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	ns := in.GetNamespace()
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	out := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{
		Namespace: ns, Name: in.GetName(), UID: types.UID(in.GetUid()), Labels: in.GetLabels(),
	}}
	var fe *FieldError
	if out.Spec, fe = claimSpecFromProtoPVC(p, in); fe != nil {
		return nil, fe
	}
	switch in.GetPhase() {
	case berthv1.PersistentVolumeClaimPhase_PERSISTENT_VOLUME_CLAIM_PHASE_UNSPECIFIED:
		out.Status.Phase = corev1.ClaimPending
	default:
		out.Status.Phase = corev1.PersistentVolumeClaimPhase(upperCamel(strings.TrimPrefix(in.GetPhase().String(), "PERSISTENT_VOLUME_CLAIM_PHASE_")))
	}
	if in.GetBindCompleted() {
		metav1.SetMetaDataAnnotation(&out.ObjectMeta, volume.AnnBindCompleted, "yes")
	}
	if in.GetSelectedNode() != "" {
		metav1.SetMetaDataAnnotation(&out.ObjectMeta, volume.AnnSelectedNode, in.GetSelectedNode())
	}
	if in.GetTerminating() {
		out.DeletionTimestamp = &metav1.Time{}
	}
	return out, volumeError(p, volume.Validate(out))
}

func storageClass(p path, in *berthv1.StorageClass) (*storagev1.StorageClass, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	out := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: in.GetName()}, Provisioner: in.GetProvisioner()}
	switch in.GetVolumeBindingMode() {
	case berthv1.VolumeBindingMode_VOLUME_BINDING_MODE_UNSPECIFIED, berthv1.VolumeBindingMode_VOLUME_BINDING_MODE_IMMEDIATE:
		out.VolumeBindingMode = new(storagev1.VolumeBindingImmediate)
	case berthv1.VolumeBindingMode_VOLUME_BINDING_MODE_WAIT_FOR_FIRST_CONSUMER:
		out.VolumeBindingMode = new(storagev1.VolumeBindingWaitForFirstConsumer)
	default:
		return nil, p.field("volume_binding_mode").errorf("unknown value %s", in.GetVolumeBindingMode())
	}
	for _, t := range in.GetAllowedTopologies() {
		var term corev1.TopologySelectorTerm
		for _, r := range t.GetMatchLabelExpressions() {
			term.MatchLabelExpressions = append(term.MatchLabelExpressions, corev1.TopologySelectorLabelRequirement{Key: r.GetKey(), Values: r.GetValues()})
		}
		out.AllowedTopologies = append(out.AllowedTopologies, term)
	}
	if in.GetIsDefault() {
		metav1.SetMetaDataAnnotation(&out.ObjectMeta, volume.AnnDefaultClass, "true")
	}
	return out, volumeError(p, volume.Validate(out))
}

func csiNode(p path, in *berthv1.CSINode) (*storagev1.CSINode, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	out := &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: in.GetName()}}
	for _, d := range in.GetDrivers() {
		drv := storagev1.CSINodeDriver{Name: d.GetName(), NodeID: d.GetNodeId(), TopologyKeys: d.GetTopologyKeys()}
		if d.AllocatableCount != nil {
			drv.Allocatable = &storagev1.VolumeNodeResources{Count: new(d.GetAllocatableCount())}
		}
		out.Spec.Drivers = append(out.Spec.Drivers, drv)
	}
	return out, volumeError(p, volume.Validate(out))
}

func csiDriver(p path, in *berthv1.CSIDriver) (*storagev1.CSIDriver, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	out := &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: in.GetName()}}
	out.Spec.AttachRequired = new(true)
	if in.AttachRequired != nil {
		out.Spec.AttachRequired = new(in.GetAttachRequired())
	}
	out.Spec.StorageCapacity = new(in.GetStorageCapacity())
	if in.GetPreventPodSchedulingIfMissing() {
		out.Spec.PreventPodSchedulingIfMissing = new(true)
	}
	return out, volumeError(p, volume.Validate(out))
}

func csiStorageCapacity(p path, in *berthv1.CSIStorageCapacity) (*storagev1.CSIStorageCapacity, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	ns := in.GetNamespace()
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	out := &storagev1.CSIStorageCapacity{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: in.GetName()}, StorageClassName: in.GetStorageClassName()}
	if in.GetNodeTopology() != nil {
		sel, fe := labelSelector(p.field("node_topology"), in.GetNodeTopology())
		if fe != nil {
			return nil, fe
		}
		out.NodeTopology = volume.KubeLabelSelector(sel)
	}
	if in.CapacityBytes != nil {
		out.Capacity = new(bytesQuantity(in.GetCapacityBytes()))
	}
	if in.MaximumVolumeSizeBytes != nil {
		out.MaximumVolumeSize = new(bytesQuantity(in.GetMaximumVolumeSizeBytes()))
	}
	return out, volumeError(p, volume.Validate(out))
}

// volumeError turns core/volume's error, whose path is in Kubernetes' JSON
// names relative to the object, into a FieldError under p in the proto's
// names.
func volumeError(p path, err error) *FieldError {
	if err == nil {
		return nil
	}
	var fe *volume.FieldError
	if !errors.As(err, &fe) {
		return p.errorf("%v", err)
	}
	return &FieldError{Path: fieldpath.Join(p.String(), volumeWirePath(fe.Path)), Reason: fe.Reason}
}

// volumeWirePath translates a Kubernetes path of a storage object to the
// proto's: no metadata or spec level, quantities are byte counts with
// their own names, a PV's node affinity is its required selector, and
// fields are snake_case.
func volumeWirePath(kube string) string {
	for _, r := range []struct{ from, to string }{
		{"metadata.", ""},
		{"spec.capacity[storage]", "capacity_bytes"},
		{"spec.resources.requests[storage]", "request_bytes"},
		{"spec.nodeAffinity.required", "node_affinity"},
		{"spec.", ""},
		{"capacity", "capacity_bytes"},
		{"maximumVolumeSize", "maximum_volume_size_bytes"},
	} {
		if kube == r.from || strings.HasPrefix(kube, r.from) && (strings.HasSuffix(r.from, ".") || kube[len(r.from)] == '.' || kube[len(r.from)] == '[') {
			kube = r.to + kube[len(r.from):]
		}
	}
	kube = strings.ReplaceAll(kube, ".nodeID", ".node_id")
	kube = strings.ReplaceAll(kube, ".allocatable.count", ".allocatable_count")
	return snakeOutsideBrackets(kube)
}

// VolumePath is the wire path, from the berth.v1.Object, of a field of a
// storage object of kind that core/volume names by its Kubernetes path.
func VolumePath(kind berthv1.ObjectKind, kubePath string) string {
	root := map[berthv1.ObjectKind]string{
		berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME:       fieldPV,
		berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM: fieldPVC,
		berthv1.ObjectKind_OBJECT_KIND_STORAGE_CLASS:           fieldClass,
		berthv1.ObjectKind_OBJECT_KIND_CSI_NODE:                fieldCSINode,
		berthv1.ObjectKind_OBJECT_KIND_CSI_DRIVER:              fieldCSIDriver,
		berthv1.ObjectKind_OBJECT_KIND_CSI_STORAGE_CAPACITY:    fieldCapacity,
	}[kind]
	return fieldpath.Join(root, volumeWirePath(kubePath))
}

// VolumeError is err with a *volume.FieldError it wraps (the scheduler's
// refusal of a storage object of kind) as a *FieldError at the object's
// wire path; other errors are returned as they are.
func VolumeError(kind berthv1.ObjectKind, err error) error {
	var fe *volume.FieldError
	if errors.As(err, &fe) {
		return &FieldError{Path: VolumePath(kind, fe.Path), Reason: fe.Reason}
	}
	return err
}

// podVolumes converts a pod's volumes; names must be unique DNS labels.
func podVolumes(p path, pod *berthv1.Pod) ([]model.PodVolume, *FieldError) {
	in := pod.GetVolumes()
	if len(in) == 0 {
		return nil, nil
	}
	vp := p.field("volumes")
	out := make([]model.PodVolume, 0, len(in))
	seen := make(map[string]bool, len(in))
	for i, v := range in {
		ip := vp.index(i)
		if fe := dnsLabel(ip.field("name"), v.GetName()); fe != nil {
			return nil, fe
		}
		if seen[v.GetName()] {
			return nil, ip.field("name").errorf("duplicate value %s", quote(v.GetName()))
		}
		seen[v.GetName()] = true
		pv := model.PodVolume{Name: v.GetName()}
		switch src := v.GetSource().(type) {
		case *berthv1.Volume_PersistentVolumeClaim:
			sp := ip.field("persistent_volume_claim")
			if src.PersistentVolumeClaim.GetClaimName() == "" {
				return nil, sp.field("claim_name").errorf("required")
			}
			if fe := subdomain(sp.field("claim_name"), src.PersistentVolumeClaim.GetClaimName()); fe != nil {
				return nil, fe
			}
			pv.ClaimName, pv.ReadOnly = src.PersistentVolumeClaim.GetClaimName(), src.PersistentVolumeClaim.GetReadOnly()
		case *berthv1.Volume_Ephemeral:
			ep := ip.field("ephemeral")
			tp := ep.field("volume_claim_template")
			tm := src.Ephemeral.GetVolumeClaimTemplate()
			if tm == nil {
				return nil, tp.errorf("required")
			}
			spec, fe := claimSpecFromProtoPVC(tp, tm)
			if fe != nil {
				return nil, fe
			}
			name := volume.EphemeralClaimName(pod.GetName(), v.GetName())
			check := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: name, Labels: tm.GetLabels()}, Spec: spec}
			if fe := volumeError(tp, volume.Validate(check)); fe != nil {
				if strings.HasPrefix(fe.Path, fieldpath.Join(tp.String(), "name")) {
					np := ip.field("name")
					fe = np.errorf("the claim name %s: %s", quote(name), fe.Reason)
				}
				return nil, fe
			}
			pv.ClaimName = name
			pv.Ephemeral = claimTemplateOf(tm, spec)
		case *berthv1.Volume_Csi:
			if src.Csi.GetDriver() == "" {
				cp := ip.field("csi")
				return nil, cp.field("driver").errorf("required")
			}
			pv.CSIDriver = src.Csi.GetDriver()
		case *berthv1.Volume_Other:
			if src.Other == "" {
				return nil, ip.field("other").errorf("required")
			}
			pv.Other = src.Other
		default:
			return nil, ip.errorf("exactly one of persistent_volume_claim, ephemeral, csi and other is required")
		}
		out = append(out, pv)
	}
	return out, nil
}

func claimTemplateOf(in *berthv1.PersistentVolumeClaim, spec corev1.PersistentVolumeClaimSpec) *model.ClaimTemplate {
	tm := &model.ClaimTemplate{Labels: in.GetLabels(), RequestBytes: in.GetRequestBytes(), StorageClassName: spec.StorageClassName}
	for _, m := range spec.AccessModes {
		tm.AccessModes = append(tm.AccessModes, string(m))
	}
	if spec.VolumeMode != nil {
		tm.VolumeMode = string(*spec.VolumeMode)
	}
	if in.GetSelector() != nil {
		tm.Selector, _ = labelSelector(rootPath(""), in.GetSelector())
	}
	return tm
}

// VolumeRefObject is the storage object a reference names, with only its
// identity (for removals); nil for other kinds.
func VolumeRefObject(r Ref) any {
	meta := metav1.ObjectMeta{Namespace: r.Namespace, Name: r.Name}
	switch r.Kind {
	case berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME:
		return &corev1.PersistentVolume{ObjectMeta: meta}
	case berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM:
		return &corev1.PersistentVolumeClaim{ObjectMeta: meta}
	case berthv1.ObjectKind_OBJECT_KIND_STORAGE_CLASS:
		return &storagev1.StorageClass{ObjectMeta: meta}
	case berthv1.ObjectKind_OBJECT_KIND_CSI_NODE:
		return &storagev1.CSINode{ObjectMeta: meta}
	case berthv1.ObjectKind_OBJECT_KIND_CSI_DRIVER:
		return &storagev1.CSIDriver{ObjectMeta: meta}
	case berthv1.ObjectKind_OBJECT_KIND_CSI_STORAGE_CAPACITY:
		return &storagev1.CSIStorageCapacity{ObjectMeta: meta}
	}
	return nil
}
