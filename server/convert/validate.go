package convert

import (
	"net/netip"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/berthsched/berth/core/model"
)

// Checks shared by the object kinds. Each returns nil or the first problem
// at p.

func required(p path, v string) *FieldError {
	if v == "" {
		return p.errorf("required")
	}
	return nil
}

// subdomain checks a DNS-1123 subdomain name (nodes, pods, classes, ...).
func subdomain(p path, v string) *FieldError {
	if v == "" {
		return p.errorf("required")
	}
	if isSubdomain(v) {
		return nil
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
	return firstMsg(p, v, validation.IsQualifiedName(v))
}

func labelValue(p path, v string) *FieldError {
	if v == "" || isNamePart(v) {
		return nil
	}
	return firstMsg(p, v, validation.IsValidLabelValue(v))
}

func firstMsg(p path, v string, msgs []string) *FieldError {
	if len(msgs) == 0 {
		return nil
	}
	return p.errorf("invalid value %q: %s", v, msgs[0])
}

// labels checks a label map: qualified keys, valid values. The first
// problem in key order is reported.
func labels(p path, m map[string]string) *FieldError {
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

// Unprefixed resource names Kubernetes defines; any other name must be
// qualified with a domain ("example.com/gpu").
var standardResources = []string{
	model.ResourceCPU, model.ResourceMemory, model.ResourceEphemeralStorage,
	model.ResourcePods, "storage",
}

// resources checks a resource list: valid names, amounts from 0 to
// model.MaxAmount.
func resources(p path, m map[string]int64) *FieldError {
	valid := true
	for k, v := range m {
		valid = valid && v >= 0 && v <= model.MaxAmount && isQualifiedName(k) &&
			(contains(standardResources, k) || strings.Contains(k, "/") || strings.HasPrefix(k, "hugepages-"))
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
		if !strings.Contains(k, "/") && !strings.HasPrefix(k, "hugepages-") && !contains(standardResources, k) {
			return kp.errorf("unknown resource name %q: a resource that is not standard (cpu, memory, ephemeral-storage, pods, hugepages-*) must be qualified with a domain, for example example.com/%s", k, k)
		}
		if m[k] < 0 {
			return kp.errorf("must not be negative, got %d", m[k])
		}
		if m[k] > model.MaxAmount {
			return kp.errorf("must be at most %d (2^62), got %d", model.MaxAmount, m[k])
		}
	}
	return nil
}

func ipAddress(p path, v string) *FieldError {
	if v == "" {
		return nil
	}
	if _, err := netip.ParseAddr(v); err != nil {
		return p.errorf("invalid IP address %q", v)
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

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}
