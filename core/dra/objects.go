package dra

import (
	"sort"

	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Objects is a set of DRA objects: what the allocator reads. The objects
// are not modified once added (an update replaces one).
type Objects struct {
	Classes   map[string]*resourceapi.DeviceClass           // by name
	Slices    map[string]*resourceapi.ResourceSlice         // by name
	Claims    map[string]*resourceapi.ResourceClaim         // by namespace/name
	Templates map[string]*resourceapi.ResourceClaimTemplate // by namespace/name
	// TaintRules are the DeviceTaintRules (by name); the allocator sees
	// the slices with their taints applied (taintrules.go).
	TaintRules map[string]*DeviceTaintRule

	// A tracker's snapshot carries its slices sorted and the generation
	// of its slices (never 0), so attempts share what depends on them
	// only; 0 in a set made otherwise.
	sorted []*resourceapi.ResourceSlice
	gen    uint64
}

// NewObjects returns an empty set.
func NewObjects() *Objects {
	return &Objects{
		Classes:    map[string]*resourceapi.DeviceClass{},
		Slices:     map[string]*resourceapi.ResourceSlice{},
		Claims:     map[string]*resourceapi.ResourceClaim{},
		Templates:  map[string]*resourceapi.ResourceClaimTemplate{},
		TaintRules: map[string]*DeviceTaintRule{},
	}
}

// Key is the namespace/name key of a namespaced object.
func Key(namespace, name string) string { return namespace + "/" + name }

// SliceList returns the slices sorted by name, the order the allocator
// gets them in (the order matters for which device is picked first).
func (o *Objects) SliceList() []*resourceapi.ResourceSlice {
	out := make([]*resourceapi.ResourceSlice, 0, len(o.Slices))
	for _, s := range o.Slices {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// sortedSlices is SliceList, shared with the other readers of a
// tracker's snapshot (not to be modified).
func (o *Objects) sortedSlices() []*resourceapi.ResourceSlice {
	if o.gen != 0 {
		return o.sorted
	}
	return o.SliceList()
}

// List lists the classes (structured.DeviceClassLister).
func (o *Objects) List() ([]*resourceapi.DeviceClass, error) {
	out := make([]*resourceapi.DeviceClass, 0, len(o.Classes))
	for _, c := range o.Classes {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Get returns a class by name (structured.DeviceClassLister); a missing
// class is a NotFound error, as the allocator expects from a lister.
func (o *Objects) Get(name string) (*resourceapi.DeviceClass, error) {
	if c, ok := o.Classes[name]; ok {
		return c, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: resourceapi.GroupName, Resource: "deviceclasses"}, name)
}
