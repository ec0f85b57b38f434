package volume

import (
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// Tracker is a scheduler's storage state: the objects it was sent and the
// claims it made for pods' ephemeral volumes. It is safe for concurrent
// use; the objects it returns must not be modified.
type Tracker struct {
	mu      sync.RWMutex
	objs    *Objects
	assumed assumed // assume.go
}

// NewTracker returns an empty tracker.
func NewTracker() *Tracker { return &Tracker{objs: NewObjects(), assumed: newAssumed()} }

// Set adds or replaces an object (validated, see Validate): a
// *corev1.PersistentVolume, *corev1.PersistentVolumeClaim,
// *storagev1.StorageClass, *storagev1.CSINode, *storagev1.CSIDriver or
// *storagev1.CSIStorageCapacity. It returns the version replaced, nil if
// there was none.
func (t *Tracker) Set(obj any) (old any, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.settleLocked(obj)
	old, err = t.setLocked(obj)
	if err == nil {
		t.arrivedLocked(obj)
	}
	return old, err
}

func (t *Tracker) setLocked(obj any) (old any, err error) {
	switch o := obj.(type) {
	case *corev1.PersistentVolume:
		return swap(t.objs.Volumes, o.Name, o), nil
	case *corev1.PersistentVolumeClaim:
		return swap(t.objs.Claims, Key(o.Namespace, o.Name), o), nil
	case *storagev1.StorageClass:
		return swap(t.objs.Classes, o.Name, o), nil
	case *storagev1.CSINode:
		return swap(t.objs.CSINodes, o.Name, o), nil
	case *storagev1.CSIDriver:
		return swap(t.objs.Drivers, o.Name, o), nil
	case *storagev1.CSIStorageCapacity:
		return swap(t.objs.Capacities, Key(o.Namespace, o.Name), o), nil
	}
	return nil, fmt.Errorf("%T is not a storage object", obj)
}

// swap puts v under key and returns what was there (nil, typed as any,
// when nothing was).
func swap[T any](m map[string]*T, key string, v *T) any {
	old, ok := m[key]
	m[key] = v
	if !ok {
		return nil
	}
	return old
}

// take removes key and returns what was there (nil, typed as any, when
// nothing was).
func take[T any](m map[string]*T, key string) any {
	old, ok := m[key]
	if !ok {
		return nil
	}
	delete(m, key)
	return old
}

// Delete removes an object by kind (Kind*), namespace (claims and
// capacities) and name; it returns the object removed, nil if unknown, and
// an error for an unknown kind.
func (t *Tracker) Delete(kind, namespace, name string) (any, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch kind {
	case KindPersistentVolume:
		delete(t.assumed.volumes, name)
		return take(t.objs.Volumes, name), nil
	case KindPersistentVolumeClaim:
		delete(t.assumed.claims, Key(namespace, name))
		return take(t.objs.Claims, Key(namespace, name)), nil
	case KindStorageClass:
		return take(t.objs.Classes, name), nil
	case KindCSINode:
		return take(t.objs.CSINodes, name), nil
	case KindCSIDriver:
		return take(t.objs.Drivers, name), nil
	case KindCSIStorageCapacity:
		return take(t.objs.Capacities, Key(namespace, name)), nil
	}
	return nil, fmt.Errorf("kind %q is not a storage kind", kind)
}

// Claim returns a claim by namespace and name, as assumed (assume.go).
func (t *Tracker) Claim(namespace, name string) (*corev1.PersistentVolumeClaim, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	c := t.claimLocked(namespace, name)
	return c, c != nil
}

// Volume returns a persistent volume by name, as assumed (assume.go).
func (t *Tracker) Volume(name string) (*corev1.PersistentVolume, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	v := t.volumeLocked(name)
	return v, v != nil
}

// Class returns a storage class by name.
func (t *Tracker) Class(name string) (*storagev1.StorageClass, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	c, ok := t.objs.Classes[name]
	return c, ok
}

// CSINode returns a node's CSINode.
func (t *Tracker) CSINode(name string) (*storagev1.CSINode, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	n, ok := t.objs.CSINodes[name]
	return n, ok
}

// Driver returns a CSI driver by name.
func (t *Tracker) Driver(name string) (*storagev1.CSIDriver, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	d, ok := t.objs.Drivers[name]
	return d, ok
}

// DefaultClass is the name of the class marked default, as kube-apiserver's
// DefaultStorageClass admission picks it among several (the newest, then
// the smallest name); false when none is.
func (t *Tracker) DefaultClass() (string, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	var best *storagev1.StorageClass
	for _, c := range sortedValues(t.objs.Classes) {
		if !IsDefaultClass(c) {
			continue
		}
		if best == nil || c.CreationTimestamp.After(best.CreationTimestamp.Time) {
			best = c
		}
	}
	if best == nil {
		return "", false
	}
	return best.Name, true
}

// Volumes lists the persistent volumes by name.
func (t *Tracker) Volumes() []*corev1.PersistentVolume {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return sortedValues(t.objs.Volumes)
}

// Claims lists the claims by namespace and name.
func (t *Tracker) Claims() []*corev1.PersistentVolumeClaim {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return sortedValues(t.objs.Claims)
}

// Classes lists the storage classes by name.
func (t *Tracker) Classes() []*storagev1.StorageClass {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return sortedValues(t.objs.Classes)
}

// CSINodes lists the CSINodes by name.
func (t *Tracker) CSINodes() []*storagev1.CSINode {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return sortedValues(t.objs.CSINodes)
}

// Drivers lists the CSI drivers by name.
func (t *Tracker) Drivers() []*storagev1.CSIDriver {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return sortedValues(t.objs.Drivers)
}

// Capacities lists the storage capacities by namespace and name.
func (t *Tracker) Capacities() []*storagev1.CSIStorageCapacity {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return sortedValues(t.objs.Capacities)
}
