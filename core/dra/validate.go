package dra

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/blang/semver/v4"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/dynamic-resource-allocation/cel"
)

// FieldError says why an object was refused: the field, as a path relative
// to the object ("spec.devices[2].name"), and a sentence for people.
type FieldError struct {
	Path   string
	Reason string
}

func (e *FieldError) Error() string { return e.Path + ": " + e.Reason }

func fieldErr(path, format string, args ...any) *FieldError {
	return &FieldError{Path: path, Reason: fmt.Sprintf(format, args...)}
}

// Validator checks objects. It compiles selectors as kube-apiserver does
// for new objects (the NewExpressions environment, with the worst-case
// cost estimated); allocation compiles them again through its own cache.
type Validator struct {
	options cel.Options
}

// NewValidator returns a validator.
func NewValidator() *Validator {
	env := environment.NewExpressions
	return &Validator{options: cel.Options{EnvType: &env}}
}

// DeviceClass checks a class: a name and compilable selectors. Its config is
// not read by the scheduler and is not checked.
func (v *Validator) DeviceClass(c *resourceapi.DeviceClass) error {
	if fe := subdomain("metadata.name", c.Name); fe != nil {
		return fe
	}
	return v.selectors("spec.selectors", c.Spec.Selectors)
}

// ResourceSlice checks a slice: driver, pool, exactly one node placement,
// and devices with unique names and well-formed attributes and capacities.
func (v *Validator) ResourceSlice(s *resourceapi.ResourceSlice) error {
	if fe := subdomain("metadata.name", s.Name); fe != nil {
		return fe
	}
	spec := &s.Spec
	if fe := subdomain("spec.driver", spec.Driver); fe != nil {
		return fe
	}
	if len(spec.Driver) > resourceapi.DriverNameMaxLength {
		return fieldErr("spec.driver", "must be at most %d characters", resourceapi.DriverNameMaxLength)
	}
	if fe := pool("spec.pool", spec.Pool); fe != nil {
		return fe
	}
	if fe := placement(spec); fe != nil {
		return fe
	}
	if len(spec.Devices) > resourceapi.ResourceSliceMaxDevices {
		return fieldErr("spec.devices", "must have at most %d devices, has %d", resourceapi.ResourceSliceMaxDevices, len(spec.Devices))
	}
	seen := make(map[string]int, len(spec.Devices))
	for i := range spec.Devices {
		d := &spec.Devices[i]
		path := fmt.Sprintf("spec.devices[%d]", i)
		if fe := dnsLabel(path+".name", d.Name); fe != nil {
			return fe
		}
		if j, dup := seen[d.Name]; dup {
			return fieldErr(path+".name", "duplicate device name %q (also spec.devices[%d])", d.Name, j)
		}
		seen[d.Name] = i
		if fe := device(path, d); fe != nil {
			return fe
		}
	}
	return nil
}

func pool(path string, p resourceapi.ResourcePool) *FieldError {
	if p.Name == "" {
		return fieldErr(path+".name", "required")
	}
	for i, seg := range strings.Split(p.Name, "/") {
		if fe := subdomain(path+".name", seg); fe != nil {
			return fieldErr(path+".name", "segment %d: %s", i, fe.Reason)
		}
	}
	if p.Generation < 0 {
		return fieldErr(path+".generation", "must be at least 0, is %d", p.Generation)
	}
	if p.ResourceSliceCount <= 0 {
		return fieldErr(path+".resourceSliceCount", "must be at least 1, is %d", p.ResourceSliceCount)
	}
	return nil
}

// placement checks that exactly one of nodeName, nodeSelector and allNodes
// is set (per-device node selection is not modelled).
func placement(spec *resourceapi.ResourceSliceSpec) *FieldError {
	if spec.PerDeviceNodeSelection != nil && *spec.PerDeviceNodeSelection {
		return fieldErr("spec.perDeviceNodeSelection", "not supported by Berth; set nodeName, nodeSelector or allNodes")
	}
	n := 0
	if spec.NodeName != nil {
		n++
		if fe := subdomain("spec.nodeName", *spec.NodeName); fe != nil {
			return fe
		}
	}
	if spec.NodeSelector != nil {
		n++
		if len(spec.NodeSelector.NodeSelectorTerms) == 0 {
			return fieldErr("spec.nodeSelector.nodeSelectorTerms", "required: a selector with no terms matches no node")
		}
	}
	if spec.AllNodes != nil && *spec.AllNodes {
		n++
	}
	if n != 1 {
		return fieldErr("spec", "exactly one of nodeName, nodeSelector and allNodes is required, %d are set", n)
	}
	return nil
}

func device(path string, d *resourceapi.Device) *FieldError {
	if n := len(d.Attributes) + len(d.Capacity); n > resourceapi.ResourceSliceMaxAttributesAndCapacitiesPerDevice {
		return fieldErr(path, "must have at most %d attributes and capacities together, has %d", resourceapi.ResourceSliceMaxAttributesAndCapacitiesPerDevice, n)
	}
	for name, a := range d.Attributes {
		p := path + ".attributes[" + string(name) + "]"
		if fe := qualifiedName(p, string(name)); fe != nil {
			return fe
		}
		if fe := attribute(p, a); fe != nil {
			return fe
		}
	}
	for name, c := range d.Capacity {
		p := path + ".capacity[" + string(name) + "]"
		if fe := qualifiedName(p, string(name)); fe != nil {
			return fe
		}
		if c.Value.Sign() < 0 {
			return fieldErr(p+".value", "must not be negative, is %s", c.Value.String())
		}
	}
	return nil
}

// attribute checks that exactly one value is set and that a version is
// semantic versioning 2.0.0.
func attribute(path string, a resourceapi.DeviceAttribute) *FieldError {
	n := 0
	for _, set := range []bool{a.IntValue != nil, a.BoolValue != nil, a.StringValue != nil, a.VersionValue != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fieldErr(path, "exactly one of int, bool, string and version is required, %d are set", n)
	}
	if a.StringValue != nil && len(*a.StringValue) > resourceapi.DeviceAttributeMaxValueLength {
		return fieldErr(path+".string", "must be at most %d characters", resourceapi.DeviceAttributeMaxValueLength)
	}
	if a.VersionValue != nil {
		if _, err := semver.Parse(*a.VersionValue); err != nil {
			return fieldErr(path+".version", "%q is not a semantic version: %v", *a.VersionValue, err)
		}
	}
	return nil
}

// ResourceClaim checks a claim's name and spec (see ClaimSpec).
func (v *Validator) ResourceClaim(c *resourceapi.ResourceClaim) error {
	if fe := subdomain("metadata.name", c.Name); fe != nil {
		return fe
	}
	if fe := dnsLabel("metadata.namespace", c.Namespace); fe != nil {
		return fe
	}
	return v.ClaimSpec("spec", &c.Spec)
}

// ResourceClaimTemplate checks a template's name and the claim spec it
// stamps out.
func (v *Validator) ResourceClaimTemplate(t *resourceapi.ResourceClaimTemplate) error {
	if fe := subdomain("metadata.name", t.Name); fe != nil {
		return fe
	}
	if fe := dnsLabel("metadata.namespace", t.Namespace); fe != nil {
		return fe
	}
	return v.ClaimSpec("spec.spec", &t.Spec.Spec)
}

// ClaimSpec checks requests (unique names, exactly one of exactly and
// firstAvailable, a class, a valid mode and count, compilable selectors) and
// constraints (naming requests that exist). path is the spec's own path.
func (v *Validator) ClaimSpec(path string, spec *resourceapi.ResourceClaimSpec) error {
	reqs := spec.Devices.Requests
	if len(reqs) > resourceapi.DeviceRequestsMaxSize {
		return fieldErr(path+".devices.requests", "must have at most %d requests, has %d", resourceapi.DeviceRequestsMaxSize, len(reqs))
	}
	names := make(map[string][]string, len(reqs)) // request → its subrequests
	for i := range reqs {
		r := &reqs[i]
		p := fmt.Sprintf("%s.devices.requests[%d]", path, i)
		if fe := dnsLabel(p+".name", r.Name); fe != nil {
			return fe
		}
		if _, dup := names[r.Name]; dup {
			return fieldErr(p+".name", "duplicate request name %q", r.Name)
		}
		subs, err := v.request(p, r)
		if err != nil {
			return err
		}
		names[r.Name] = subs
	}
	if len(spec.Devices.Constraints) > resourceapi.DeviceConstraintsMaxSize {
		return fieldErr(path+".devices.constraints", "must have at most %d constraints", resourceapi.DeviceConstraintsMaxSize)
	}
	for i, c := range spec.Devices.Constraints {
		p := fmt.Sprintf("%s.devices.constraints[%d]", path, i)
		if fe := constraint(p, c, names); fe != nil {
			return fe
		}
	}
	return nil
}

// request checks one request and returns the names of its subrequests.
func (v *Validator) request(path string, r *resourceapi.DeviceRequest) ([]string, error) {
	switch {
	case r.Exactly != nil && len(r.FirstAvailable) > 0:
		return nil, fieldErr(path, "exactly one of exactly and firstAvailable is required, both are set")
	case r.Exactly != nil:
		e := r.Exactly
		return nil, v.device(path+".exactly", e.DeviceClassName, e.Selectors, e.AllocationMode, e.Count)
	case len(r.FirstAvailable) > resourceapi.FirstAvailableDeviceRequestMaxSize:
		return nil, fieldErr(path+".firstAvailable", "must have at most %d subrequests, has %d", resourceapi.FirstAvailableDeviceRequestMaxSize, len(r.FirstAvailable))
	case len(r.FirstAvailable) > 0:
		subs := make([]string, 0, len(r.FirstAvailable))
		for j := range r.FirstAvailable {
			s := &r.FirstAvailable[j]
			p := fmt.Sprintf("%s.firstAvailable[%d]", path, j)
			if fe := dnsLabel(p+".name", s.Name); fe != nil {
				return nil, fe
			}
			for _, prev := range subs {
				if prev == s.Name {
					return nil, fieldErr(p+".name", "duplicate subrequest name %q", s.Name)
				}
			}
			subs = append(subs, s.Name)
			if err := v.device(p, s.DeviceClassName, s.Selectors, s.AllocationMode, s.Count); err != nil {
				return nil, err
			}
		}
		return subs, nil
	}
	return nil, fieldErr(path, "exactly one of exactly and firstAvailable is required, neither is set")
}

// device checks what exactly-requests and subrequests share.
func (v *Validator) device(path, class string, sels []resourceapi.DeviceSelector, mode resourceapi.DeviceAllocationMode, count int64) error {
	if fe := subdomain(path+".deviceClassName", class); fe != nil {
		return fe
	}
	switch mode {
	case resourceapi.DeviceAllocationModeExactCount:
		if count <= 0 {
			return fieldErr(path+".count", "must be at least 1 for allocationMode ExactCount, is %d", count)
		}
		if count > resourceapi.AllocationResultsMaxSize {
			// A claim's allocation holds at most this many devices: a
			// larger count could never be allocated.
			return fieldErr(path+".count", "must be at most %d, the most devices one allocation holds, is %d", resourceapi.AllocationResultsMaxSize, count)
		}
	case resourceapi.DeviceAllocationModeAll:
		if count != 0 {
			return fieldErr(path+".count", "must not be set for allocationMode All, is %d", count)
		}
	default:
		return fieldErr(path+".allocationMode", "must be ExactCount or All, is %q", mode)
	}
	return v.selectors(path+".selectors", sels)
}

// selectors compiles each CEL selector as kube-apiserver does: the
// expression must compile in the DRA environment, evaluate to a bool and
// stay within the cost limit.
func (v *Validator) selectors(path string, sels []resourceapi.DeviceSelector) error {
	if len(sels) > resourceapi.DeviceSelectorsMaxSize {
		return fieldErr(path, "must have at most %d selectors, has %d", resourceapi.DeviceSelectorsMaxSize, len(sels))
	}
	for i, s := range sels {
		p := fmt.Sprintf("%s[%d].cel", path, i)
		if s.CEL == nil {
			return fieldErr(p, "required")
		}
		if fe := v.expression(p+".expression", s.CEL.Expression); fe != nil {
			return fe
		}
	}
	return nil
}

func (v *Validator) expression(path, expr string) *FieldError {
	switch {
	case expr == "":
		return fieldErr(path, "required")
	case len(expr) > resourceapi.CELSelectorExpressionMaxLength:
		return fieldErr(path, "must be at most %d bytes, is %d", resourceapi.CELSelectorExpressionMaxLength, len(expr))
	}
	res := cel.GetCompiler(celFeatures()).CompileCELExpression(expr, v.options)
	if res.Error != nil {
		return fieldErr(path, "%s", res.Error.Detail)
	}
	if res.MaxCost > resourceapi.CELSelectorExpressionMaxCost {
		return fieldErr(path, "the estimated cost of the expression (%d) exceeds the limit (%d); simplify it or bound the sizes it iterates over",
			res.MaxCost, resourceapi.CELSelectorExpressionMaxCost)
	}
	return nil
}

// constraint checks that a matchAttribute constraint names a qualified
// attribute and only requests (or request/subrequest) that exist.
func constraint(path string, c resourceapi.DeviceConstraint, names map[string][]string) *FieldError {
	if c.MatchAttribute == nil && c.DistinctAttribute == nil {
		return fieldErr(path+".matchAttribute", "required")
	}
	if c.DistinctAttribute != nil {
		return fieldErr(path+".distinctAttribute", "not supported by Berth (alpha in kube 1.36, off by default)")
	}
	if fe := qualifiedName(path+".matchAttribute", string(*c.MatchAttribute)); fe != nil {
		return fe
	}
	if !strings.Contains(string(*c.MatchAttribute), "/") {
		return fieldErr(path+".matchAttribute", "must be fully qualified (domain/name), is %q", *c.MatchAttribute)
	}
	for i, r := range c.Requests {
		if !requestExists(r, names) {
			return fieldErr(path+".requests["+strconv.Itoa(i)+"]", "no request %q in the claim", r)
		}
	}
	return nil
}

func requestExists(ref string, names map[string][]string) bool {
	req, sub, hasSub := strings.Cut(ref, "/")
	subs, ok := names[req]
	if !ok || !hasSub {
		return ok
	}
	for _, s := range subs {
		if s == sub {
			return true
		}
	}
	return false
}

// qualifiedName checks an attribute or capacity name: an identifier of at
// most 32 characters, with an optional DNS subdomain domain of at most 63.
func qualifiedName(path, name string) *FieldError {
	domain, id, hasDomain := strings.Cut(name, "/")
	if !hasDomain {
		id, domain = domain, ""
	}
	if hasDomain {
		if len(domain) > resourceapi.DeviceMaxDomainLength {
			return fieldErr(path, "domain %q must be at most %d characters", domain, resourceapi.DeviceMaxDomainLength)
		}
		if errs := validation.IsDNS1123Subdomain(domain); len(errs) > 0 {
			return fieldErr(path, "domain %q: %s", domain, errs[0])
		}
	}
	if id == "" || len(id) > resourceapi.DeviceMaxIDLength || !isCIdentifier(id) {
		return fieldErr(path, "name %q must be a C identifier of at most %d characters", id, resourceapi.DeviceMaxIDLength)
	}
	return nil
}

func isCIdentifier(s string) bool {
	for i, r := range s {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

func subdomain(path, s string) *FieldError {
	if s == "" {
		return fieldErr(path, "required")
	}
	if errs := validation.IsDNS1123Subdomain(s); len(errs) > 0 {
		return fieldErr(path, "%q: %s", s, errs[0])
	}
	return nil
}

func dnsLabel(path, s string) *FieldError {
	if s == "" {
		return fieldErr(path, "required")
	}
	if errs := validation.IsDNS1123Label(s); len(errs) > 0 {
		return fieldErr(path, "%q: %s", s, errs[0])
	}
	return nil
}
