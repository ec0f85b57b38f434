package runtime

import (
	"fmt"

	"github.com/berthsched/berth/core/framework"
)

// Registry maps plugin names to their factories. It is a value: the
// scheduler builds one with the in-tree plugins and may merge out-of-tree
// ones into it.
type Registry map[string]framework.PluginFactory

// Register adds a factory; a name registered already is an error.
func (r Registry) Register(name string, factory framework.PluginFactory) error {
	if _, ok := r[name]; ok {
		return fmt.Errorf("a plugin named %q is registered already", name)
	}
	r[name] = factory
	return nil
}

// Unregister removes a factory; an unknown name is an error.
func (r Registry) Unregister(name string) error {
	if _, ok := r[name]; !ok {
		return fmt.Errorf("no plugin named %q is registered", name)
	}
	delete(r, name)
	return nil
}

// Merge adds every factory of in; a name present in both is an error and
// nothing is added.
func (r Registry) Merge(in Registry) error {
	for name := range in {
		if _, ok := r[name]; ok {
			return fmt.Errorf("a plugin named %q is registered already", name)
		}
	}
	for name, factory := range in {
		r[name] = factory
	}
	return nil
}
