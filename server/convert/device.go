package convert

import (
	"errors"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/fieldpath"
	"github.com/berthsched/berth/core/model"
)

// The dynamic resource allocation objects are converted to Kubernetes' own
// resource.k8s.io/v1 types, which core/dra allocates with, and validated by
// core/dra (kube-apiserver's rules, CEL compiled in kube's environment);
// its paths, kube's JSON names, are translated to the proto's.

func deviceClass(p path, in *berthv1.DeviceClass) (*resourceapi.DeviceClass, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	out := &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: in.GetName()}}
	out.Spec.Selectors = selectorsFromProto(in.GetSelectors())
	return out, draError(p, dra.NewValidator().DeviceClass(out))
}

func resourceSlice(p path, in *berthv1.ResourceSlice) (*resourceapi.ResourceSlice, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	out := &resourceapi.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: in.GetName()}}
	spec := &out.Spec
	spec.Driver = in.GetDriver()
	spec.Pool = resourceapi.ResourcePool{
		Name: in.GetPool().GetName(), Generation: in.GetPool().GetGeneration(),
		ResourceSliceCount: in.GetPool().GetResourceSliceCount(),
	}
	if in.GetNodeName() != "" {
		spec.NodeName = new(in.GetNodeName())
	}
	if in.GetNodeSelector() != nil {
		sel, fe := nodeSelector(p.field("node_selector"), in.GetNodeSelector())
		if fe != nil {
			return nil, fe
		}
		spec.NodeSelector = kubeNodeSelector(sel)
	}
	if in.GetAllNodes() {
		spec.AllNodes = new(true)
	}
	dp := p.field("devices")
	for i, d := range in.GetDevices() {
		dev, fe := deviceFromProto(dp.index(i), d)
		if fe != nil {
			return nil, fe
		}
		spec.Devices = append(spec.Devices, dev)
	}
	return out, draError(p, dra.NewValidator().ResourceSlice(out))
}

func deviceFromProto(p path, in *berthv1.Device) (resourceapi.Device, *FieldError) {
	out := resourceapi.Device{Name: in.GetName()}
	taints, fe := deviceTaintsFromProto(p.field("taints"), in.GetTaints())
	if fe != nil {
		return out, fe
	}
	out.Taints = taints
	for _, name := range sortedKeys(in.GetAttributes()) {
		a := in.GetAttributes()[name]
		var v resourceapi.DeviceAttribute
		switch x := a.GetValue().(type) {
		case *berthv1.DeviceAttribute_Int:
			v.IntValue = new(x.Int)
		case *berthv1.DeviceAttribute_Bool:
			v.BoolValue = new(x.Bool)
		case *berthv1.DeviceAttribute_String_:
			v.StringValue = new(x.String_)
		case *berthv1.DeviceAttribute_Version:
			v.VersionValue = new(x.Version)
		default:
			ap := p.field("attributes")
			return out, ap.key(name).errorf("exactly one of int, bool, string and version is required")
		}
		if out.Attributes == nil {
			out.Attributes = map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{}
		}
		out.Attributes[resourceapi.QualifiedName(name)] = v
	}
	for _, name := range sortedKeys(in.GetCapacity()) {
		q, err := resource.ParseQuantity(in.GetCapacity()[name])
		if err != nil {
			cp := p.field("capacity")
			return out, cp.key(name).errorf("%s is not a quantity: %v", quote(in.GetCapacity()[name]), err)
		}
		if q.Sign() < 0 || q.Cmp(maxCapacity()) > 0 {
			// 1e1000 parses; no arithmetic on it would make sense.
			cp := p.field("capacity")
			return out, cp.key(name).errorf("%s must be between 0 and %s (2^62)", quote(in.GetCapacity()[name]), ptr(maxCapacity()).String())
		}
		if out.Capacity == nil {
			out.Capacity = map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{}
		}
		out.Capacity[resourceapi.QualifiedName(name)] = resourceapi.DeviceCapacity{Value: q}
	}
	return out, nil
}

func resourceClaim(p path, in *berthv1.ResourceClaim) (*resourceapi.ResourceClaim, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	out := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{
		Namespace: in.GetNamespace(), Name: in.GetName(), UID: types.UID(in.GetUid()),
	}}
	if out.UID == "" {
		// Distinct claims need distinct uids for the allocator's
		// in-flight tracking; kubeoracle names them the same way.
		out.UID = types.UID("resourceclaim-" + in.GetNamespace() + "-" + in.GetName())
	}
	var fe *FieldError
	if out.Spec, fe = claimSpecFromProto(p.field("spec"), in.GetSpec()); fe != nil {
		return nil, fe
	}
	dra.DefaultClaimSpec(&out.Spec)
	if fe := draError(p, dra.NewValidator().ResourceClaim(out)); fe != nil {
		return nil, fe
	}
	if st := in.GetStatus(); st != nil {
		if out.Status, fe = claimStatusFromProto(p.field("status"), st); fe != nil {
			return nil, fe
		}
	}
	return out, nil
}

func resourceClaimTemplate(p path, in *berthv1.ResourceClaimTemplate) (*resourceapi.ResourceClaimTemplate, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	out := &resourceapi.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: in.GetNamespace(), Name: in.GetName()}}
	var fe *FieldError
	if out.Spec.Spec, fe = claimSpecFromProto(p.field("spec"), in.GetSpec()); fe != nil {
		return nil, fe
	}
	dra.DefaultClaimSpec(&out.Spec.Spec)
	return out, draError(p, dra.NewValidator().ResourceClaimTemplate(out))
}

// claimSpecFromProto converts a claim's spec at p; only the requests'
// tolerations are checked here, the rest is core/dra's.
func claimSpecFromProto(p path, in *berthv1.ResourceClaimSpec) (resourceapi.ResourceClaimSpec, *FieldError) {
	var out resourceapi.ResourceClaimSpec
	rp := p.field("requests")
	for i, r := range in.GetRequests() {
		ip := rp.index(i)
		req := resourceapi.DeviceRequest{Name: r.GetName()}
		if e := r.GetExactly(); e != nil {
			ep := ip.field("exactly")
			tols, fe := deviceTolerationsFromProto(ep.field("tolerations"), e.GetTolerations())
			if fe != nil {
				return out, fe
			}
			req.Exactly = &resourceapi.ExactDeviceRequest{
				DeviceClassName: e.GetDeviceClassName(), Selectors: selectorsFromProto(e.GetSelectors()),
				AllocationMode: allocationMode(e.GetAllocationMode()), Count: e.GetCount(), Tolerations: tols,
			}
			if e.GetAdminAccess() {
				req.Exactly.AdminAccess = new(true)
			}
		}
		fp := ip.field("first_available")
		for j, s := range r.GetFirstAvailable() {
			sp := fp.index(j)
			tols, fe := deviceTolerationsFromProto(sp.field("tolerations"), s.GetTolerations())
			if fe != nil {
				return out, fe
			}
			req.FirstAvailable = append(req.FirstAvailable, resourceapi.DeviceSubRequest{
				Name: s.GetName(), DeviceClassName: s.GetDeviceClassName(), Selectors: selectorsFromProto(s.GetSelectors()),
				AllocationMode: allocationMode(s.GetAllocationMode()), Count: s.GetCount(), Tolerations: tols,
			})
		}
		out.Devices.Requests = append(out.Devices.Requests, req)
	}
	for _, c := range in.GetConstraints() {
		dc := resourceapi.DeviceConstraint{Requests: c.GetRequests()}
		if c.GetMatchAttribute() != "" {
			dc.MatchAttribute = new(resourceapi.FullyQualifiedName(c.GetMatchAttribute()))
		}
		out.Devices.Constraints = append(out.Devices.Constraints, dc)
	}
	return out, nil
}

// allocationMode maps the enum; an unknown number stays as text for the
// validator to name.
func allocationMode(m berthv1.DeviceAllocationMode) resourceapi.DeviceAllocationMode {
	switch m {
	case berthv1.DeviceAllocationMode_DEVICE_ALLOCATION_MODE_UNSPECIFIED:
		return ""
	case berthv1.DeviceAllocationMode_DEVICE_ALLOCATION_MODE_EXACT_COUNT:
		return resourceapi.DeviceAllocationModeExactCount
	case berthv1.DeviceAllocationMode_DEVICE_ALLOCATION_MODE_ALL:
		return resourceapi.DeviceAllocationModeAll
	}
	return resourceapi.DeviceAllocationMode(m.String())
}

// claimStatusFromProto converts the status of a claim allocated before
// Berth saw it: every device names its request, driver, pool and device,
// every consumer its name and uid.
func claimStatusFromProto(p path, in *berthv1.ResourceClaimStatus) (resourceapi.ResourceClaimStatus, *FieldError) {
	var out resourceapi.ResourceClaimStatus
	if a := in.GetAllocation(); a != nil {
		out.Allocation = &resourceapi.AllocationResult{}
		ap := p.field("allocation")
		if a.GetNodeSelector() != nil {
			sel, fe := nodeSelector(ap.field("node_selector"), a.GetNodeSelector())
			if fe != nil {
				return out, fe
			}
			out.Allocation.NodeSelector = kubeNodeSelector(sel)
		}
		dp := ap.field("devices")
		for i, d := range a.GetDevices() {
			ip := dp.index(i)
			for _, f := range []struct{ name, v string }{{"request", d.GetRequest()}, {"driver", d.GetDriver()}, {"pool", d.GetPool()}, {"device", d.GetDevice()}} {
				if f.v == "" {
					return out, ip.field(f.name).errorf("required")
				}
			}
			r := resourceapi.DeviceRequestAllocationResult{Request: d.GetRequest(), Driver: d.GetDriver(), Pool: d.GetPool(), Device: d.GetDevice()}
			if d.GetAdminAccess() {
				r.AdminAccess = new(true)
			}
			out.Allocation.Devices.Results = append(out.Allocation.Devices.Results, r)
		}
	}
	rp := p.field("reserved_for")
	for i, c := range in.GetReservedFor() {
		ip := rp.index(i)
		if fe := subdomain(ip.field("name"), c.GetName()); fe != nil {
			return out, fe
		}
		if c.GetUid() == "" {
			return out, ip.field("uid").errorf("required")
		}
		out.ReservedFor = append(out.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: c.GetName(), UID: types.UID(c.GetUid())})
	}
	return out, nil
}

// podClaims converts a pod's resource_claims and checks that its
// containers' claims name entries of it. A template entry gets the name of
// the claim Berth makes for the pod (dra.TemplateClaimName).
func podClaims(p path, in *berthv1.Pod) ([]model.PodResourceClaim, *FieldError) {
	var out []model.PodResourceClaim
	names := map[string]bool{}
	rp := p.field("resource_claims")
	if fe := overCap(rp, len(in.GetResourceClaims()), MaxPodClaims); fe != nil {
		return nil, fe
	}
	for i, c := range in.GetResourceClaims() {
		ep := rp.index(i)
		if fe := dnsLabel(ep.field("name"), c.GetName()); fe != nil {
			return nil, fe
		}
		if names[c.GetName()] {
			return nil, ep.field("name").errorf("duplicate %s", quote(c.GetName()))
		}
		names[c.GetName()] = true
		entry := model.PodResourceClaim{Name: c.GetName(), ClaimName: c.GetResourceClaimName(), TemplateName: c.GetResourceClaimTemplateName()}
		switch {
		case (entry.ClaimName == "") == (entry.TemplateName == ""):
			return nil, ep.errorf("exactly one of resource_claim_name and resource_claim_template_name is required")
		case entry.ClaimName != "":
			if fe := subdomain(ep.field("resource_claim_name"), entry.ClaimName); fe != nil {
				return nil, fe
			}
		default:
			if fe := subdomain(ep.field("resource_claim_template_name"), entry.TemplateName); fe != nil {
				return nil, fe
			}
			entry.ClaimName = dra.TemplateClaimName(in.GetNamespace(), in.GetName(), entry.Name)
		}
		out = append(out, entry)
	}
	for _, list := range []struct {
		field      string
		containers []*berthv1.Container
	}{{"containers", in.GetContainers()}, {"init_containers", in.GetInitContainers()}} {
		lp := p.field(list.field)
		for i, c := range list.containers {
			ip := lp.index(i)
			cp := ip.field("claims")
			for j, name := range c.GetClaims() {
				if !names[name] {
					return nil, cp.index(j).errorf("no entry %s in resource_claims", quote(name))
				}
			}
		}
	}
	return out, nil
}

// podClaimsToProto is the wire form of a pod's claims.
func podClaimsToProto(in []model.PodResourceClaim) []*berthv1.PodResourceClaim {
	var out []*berthv1.PodResourceClaim
	for _, c := range in {
		e := &berthv1.PodResourceClaim{Name: c.Name}
		if c.TemplateName != "" {
			e.ResourceClaimTemplateName = c.TemplateName
		} else {
			e.ResourceClaimName = c.ClaimName
		}
		out = append(out, e)
	}
	return out
}

func selectorsFromProto(in []*berthv1.DeviceSelector) []resourceapi.DeviceSelector {
	out := make([]resourceapi.DeviceSelector, 0, len(in))
	for _, s := range in {
		out = append(out, resourceapi.DeviceSelector{CEL: &resourceapi.CELDeviceSelector{Expression: s.GetCel()}})
	}
	return out
}

// kubeNodeSelector is a validated selector in Kubernetes' type (the
// operators have Kubernetes' names).
func kubeNodeSelector(in *model.NodeSelector) *corev1.NodeSelector {
	conv := func(rs []model.NodeSelectorRequirement) []corev1.NodeSelectorRequirement {
		var out []corev1.NodeSelectorRequirement
		for _, r := range rs {
			out = append(out, corev1.NodeSelectorRequirement{Key: r.Key, Operator: corev1.NodeSelectorOperator(r.Operator), Values: r.Values})
		}
		return out
	}
	out := &corev1.NodeSelector{}
	for _, t := range in.Terms {
		out.NodeSelectorTerms = append(out.NodeSelectorTerms, corev1.NodeSelectorTerm{
			MatchExpressions: conv(t.MatchExpressions), MatchFields: conv(t.MatchFields),
		})
	}
	return out
}

// draError turns core/dra's error, whose path is in Kubernetes' JSON names
// relative to the object, into a FieldError under p in the proto's names.
func draError(p path, err error) *FieldError {
	if err == nil {
		return nil
	}
	var fe *dra.FieldError
	if !errors.As(err, &fe) {
		return p.errorf("%v", err)
	}
	return &FieldError{Path: fieldpath.Join(p.String(), wirePath(fe.Path)), Reason: fe.Reason}
}

// wirePath translates a Kubernetes path of a DRA object to the proto's:
// the proto has no metadata, no spec of a class or slice and no devices
// level of a claim spec, a selector is its expression, a capacity its
// value, and fields are snake_case (map keys in brackets are kept).
func wirePath(kube string) string {
	for _, r := range []struct{ from, to string }{
		{"metadata.", ""},
		{"spec.spec.devices.", "spec."},
		{"spec.devices.", "spec."},
		{"spec.selectors", "selectors"},
		{"spec.", ""},
	} {
		if strings.HasPrefix(kube, r.from) {
			kube = r.to + kube[len(r.from):]
			break
		}
	}
	if kube == "spec" {
		kube = ""
	}
	kube = strings.ReplaceAll(kube, ".cel.expression", ".cel")
	if i := strings.LastIndex(kube, "].value"); i >= 0 && strings.Contains(kube, "capacity[") {
		kube = kube[:i+1]
	}
	return snakeOutsideBrackets(kube)
}

func snakeOutsideBrackets(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case depth == 0 && r >= 'A' && r <= 'Z':
			b.WriteByte('_')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// DevicePath is the wire path, from the berth.v1.Object, of a field of a
// DRA object of kind that core/dra names by its Kubernetes path
// ("spec.devices.requests[0].exactly.deviceClassName" of a claim is
// "resource_claim.spec.requests[0].exactly.device_class_name").
func DevicePath(kind berthv1.ObjectKind, kubePath string) string {
	root := map[berthv1.ObjectKind]string{
		berthv1.ObjectKind_OBJECT_KIND_DEVICE_CLASS:            fieldDeviceClass,
		berthv1.ObjectKind_OBJECT_KIND_RESOURCE_SLICE:          fieldSlice,
		berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM:          fieldClaim,
		berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE: fieldClaimTemplate,
		berthv1.ObjectKind_OBJECT_KIND_DEVICE_TAINT_RULE:       fieldTaintRule,
	}[kind]
	return fieldpath.Join(root, wirePath(kubePath))
}

// DeviceObject is the Kubernetes object of a DRA Object (a
// *resourceapi.DeviceClass, ResourceSlice, ResourceClaim or
// ResourceClaimTemplate, or a *dra.DeviceTaintRule, as the scheduler takes
// them); nil for other
// kinds.
func DeviceObject(o Object) any {
	switch {
	case o.DeviceClass != nil:
		return o.DeviceClass
	case o.ResourceSlice != nil:
		return o.ResourceSlice
	case o.ResourceClaim != nil:
		return o.ResourceClaim
	case o.ResourceClaimTemplate != nil:
		return o.ResourceClaimTemplate
	case o.DeviceTaintRule != nil:
		return o.DeviceTaintRule
	}
	return nil
}

// DeviceRefObject is the DRA object a reference names, with only its
// identity (for removals); nil for other kinds.
func DeviceRefObject(r Ref) any {
	meta := metav1.ObjectMeta{Namespace: r.Namespace, Name: r.Name}
	switch r.Kind {
	case berthv1.ObjectKind_OBJECT_KIND_DEVICE_CLASS:
		return &resourceapi.DeviceClass{ObjectMeta: meta}
	case berthv1.ObjectKind_OBJECT_KIND_RESOURCE_SLICE:
		return &resourceapi.ResourceSlice{ObjectMeta: meta}
	case berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM:
		return &resourceapi.ResourceClaim{ObjectMeta: meta}
	case berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE:
		return &resourceapi.ResourceClaimTemplate{ObjectMeta: meta}
	case berthv1.ObjectKind_OBJECT_KIND_DEVICE_TAINT_RULE:
		return &dra.DeviceTaintRule{Name: r.Name}
	}
	return nil
}

// DeviceError is err with a *dra.FieldError it wraps (the scheduler's
// refusal of a DRA object of kind) as a *FieldError at the object's wire
// path; other errors are returned as they are.
func DeviceError(kind berthv1.ObjectKind, err error) error {
	var fe *dra.FieldError
	if errors.As(err, &fe) {
		return &FieldError{Path: DevicePath(kind, fe.Path), Reason: fe.Reason}
	}
	return err
}
