package helper

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Prefixes that classify resource names as Kubernetes does.
const (
	nativeDomain        = "kubernetes.io/"
	hugePagesPrefix     = "hugepages-"
	attachableVolumes   = "attachable-volumes-"
	quotaRequestsPrefix = "requests."
)

// IsExtendedResourceName reports whether name is an extended resource: a
// domain-qualified name outside kubernetes.io, such as "example.com/gpu".
// Only these are subject to NodeResourcesFit's ignoredResources and
// ignoredResourceGroups.
func IsExtendedResourceName(name string) bool {
	if !strings.Contains(name, "/") || strings.Contains(name, nativeDomain) ||
		strings.HasPrefix(name, quotaRequestsPrefix) {
		return false
	}
	// Kubernetes requires the name to stay valid as a quota name.
	return len(validation.IsQualifiedName(quotaRequestsPrefix+name)) == 0
}

// IsScalarResourceName reports whether name is a resource the scheduler
// counts besides cpu, memory, ephemeral-storage and pods: extended
// resources, hugepages, attachable volumes and other kubernetes.io/ names.
// Requests and capacities of any other name are ignored.
func IsScalarResourceName(name string) bool {
	return IsExtendedResourceName(name) || strings.HasPrefix(name, hugePagesPrefix) ||
		strings.Contains(name, nativeDomain) || strings.HasPrefix(name, attachableVolumes)
}
