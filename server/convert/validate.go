package convert

import (
	"net/netip"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/berthsched/berth/core/model"
)

// Checks shared by the object kinds. Each returns nil or the first problem
// at p.

// subdomain checks a DNS-1123 subdomain name (nodes, pods, classes, ...).
func subdomain(p path, v string) *FieldError {
	if v == "" {
		return p.errorf("required")
	}
	if isSubdomain(v) {
		return nil
	}
	if fe := tooLong(p, v, maxSubdomain); fe != nil {
		return fe
	}
	return firstMsg(p, v, validation.IsDNS1123Subdomain(v))
}

// optionalSubdomain checks a DNS-1123 subdomain name that may be empty.
func optionalSubdomain(p path, v string) *FieldError {
	if v == "" {
		return nil
	}
	return subdomain(p, v)
}

// dnsLabel checks a DNS-1123 label (namespaces, container names).
func dnsLabel(p path, v string) *FieldError {
	if v == "" {
		return p.errorf("required")
	}
	if isDNSLabel(v) {
		return nil
	}
	if fe := tooLong(p, v, maxNamePart); fe != nil {
		return fe
	}
	return firstMsg(p, v, validation.IsDNS1123Label(v))
}

// qualifiedName checks a label key, taint key or other qualified name
// ("example.com/name" or "name").
func qualifiedName(p path, v string) *FieldError {
	if v == "" {
		return p.errorf("required")
	}
	if isQualifiedName(v) {
		return nil
	}
	if fe := tooLong(p, v, maxSubdomain+1+maxNamePart); fe != nil {
		return fe
	}
	return firstMsg(p, v, validation.IsQualifiedName(v))
}

func labelValue(p path, v string) *FieldError {
	if v == "" || isNamePart(v) {
		return nil
	}
	if fe := tooLong(p, v, maxNamePart); fe != nil {
		return fe
	}
	return firstMsg(p, v, validation.IsValidLabelValue(v))
}

// The lengths Kubernetes allows: a DNS-1123 subdomain, and a DNS label,
// label value or the name part of a qualified name.
const (
	maxSubdomain = 253
	maxNamePart  = 63
)

// maxValidated is longer than any name or label apimachinery accepts (a
// qualified name is at most 317 bytes): a longer value is refused for its
// length without running apimachinery's expressions over it.
const maxValidated = 1024

// tooLong refuses v for its length when it is over maxValidated.
func tooLong(p path, v string, max int) *FieldError {
	if len(v) <= maxValidated {
		return nil
	}
	return p.errorf("invalid value %s: must be no more than %d bytes", quote(v), max)
}

// checkUID checks a pod uid: at most MaxUIDLength bytes, and present when
// required.
func checkUID(p path, v string, required bool) *FieldError {
	switch {
	case v == "" && required:
		return p.errorf("required")
	case len(v) > MaxUIDLength:
		return p.errorf("must be at most %d bytes, got %d", MaxUIDLength, len(v))
	}
	return nil
}

// maxBytes checks that a free-form string is at most max bytes.
func maxBytes(p path, v string, max int) *FieldError {
	if len(v) > max {
		return p.errorf("must be at most %d bytes, got %d", max, len(v))
	}
	return nil
}

func firstMsg(p path, v string, msgs []string) *FieldError {
	if len(msgs) == 0 {
		return nil
	}
	return p.errorf("invalid value %s: %s", quote(v), msgs[0])
}

// labels checks a label map: qualified keys, valid values. The first
// problem in key order is reported.
func labels(p path, m map[string]string) *FieldError {
	if fe := overCap(p, len(m), MaxLabels); fe != nil {
		return fe
	}
	valid := true
	for k, v := range m {
		valid = valid && isQualifiedName(k) && (v == "" || isNamePart(v))
	}
	if valid {
		return nil
	}
	for _, k := range sortedKeys(m) {
		if fe := qualifiedName(p.key(k), k); fe != nil {
			return fe
		}
		if fe := labelValue(p.key(k), m[k]); fe != nil {
			return fe
		}
	}
	return nil
}

// resources checks a resource list: valid names, amounts from 0 to
// model.MaxAmount.
func resources(p path, m map[string]int64) *FieldError {
	if fe := overCap(p, len(m), MaxResources); fe != nil {
		return fe
	}
	valid := true
	for k, v := range m {
		valid = valid && v >= 0 && v <= model.MaxAmount && (k != model.ResourceCPU || v <= MaxCPU) && isQualifiedName(k) &&
			model.CheckResourceName(k) == nil
	}
	if valid {
		return nil
	}
	// The first problem in key order is reported.
	for _, k := range sortedKeys(m) {
		kp := p.key(k)
		if fe := qualifiedName(kp, k); fe != nil {
			return fe
		}
		if err := model.CheckResourceName(k); err != nil {
			return kp.errorf("%v", err)
		}
		if m[k] < 0 {
			return kp.errorf("must not be negative, got %d", m[k])
		}
		if m[k] > model.MaxAmount {
			return kp.errorf("must be at most %d (2^62), got %d", model.MaxAmount, m[k])
		}
		if k == model.ResourceCPU && m[k] > MaxCPU {
			return kp.errorf("must be at most %d millicores (2^40, about a billion cores), got %d", MaxCPU, m[k])
		}
	}
	return nil
}

func ipAddress(p path, v string) *FieldError {
	if v == "" {
		return nil
	}
	if _, err := netip.ParseAddr(v); err != nil {
		return p.errorf("invalid IP address %s", quote(v))
	}
	return nil
}

func port(p path, v int32, allowZero bool) *FieldError {
	if (v == 0 && allowZero) || (v >= 1 && v <= 65535) {
		return nil
	}
	return p.errorf("must be between 1 and 65535, got %d", v)
}

func weight(p path, w int32) *FieldError {
	if w < 1 || w > 100 {
		return p.errorf("must be between 1 and 100, got %d", w)
	}
	return nil
}

// Bounds on free-form strings Berth keeps. Kubernetes generates uids (36
// bytes); Berth takes the orchestrator's, and a uid is part of store keys
// (store.MaxKeySize), so it is bounded well below that.
const (
	// MaxUIDLength is the most bytes of a pod uid.
	MaxUIDLength = 256
	// MaxDescriptionLength is the most bytes of a PriorityClass
	// description.
	MaxDescriptionLength = 4096
)

// MaxReasonLength is the most bytes of the reason a caller gives for a
// failed bind; Berth keeps it to explain the pod.
const MaxReasonLength = 1024

// CheckName checks a name in a request that is not an object (a node, a
// profile): a DNS-1123 subdomain, or empty when not required. A
// *FieldError's path is fieldPath.
func CheckName(fieldPath, v string, required bool) error {
	if v == "" && !required {
		return nil
	}
	return asError(subdomain(rootPath(fieldPath), v))
}

// CheckLength checks that a free-form string of a request is at most max
// bytes. A *FieldError's path is fieldPath.
func CheckLength(fieldPath, v string, max int) error {
	return asError(maxBytes(rootPath(fieldPath), v, max))
}
