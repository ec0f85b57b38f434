package runtime

import (
	"time"

	"github.com/berthsched/berth/core/framework"
)

// now returns the time a timing starts, without reading the clock when no
// metrics hook is set.
func (f *Framework) now() time.Time {
	if f.metrics == nil {
		return time.Time{}
	}
	return f.clock.Now()
}

// observePoint records a run of an extension point started at start.
func (f *Framework) observePoint(point string, start time.Time, code framework.Code) {
	if f.metrics != nil {
		f.metrics.ObserveExtensionPoint(f.profileName, point, code, f.clock.Now().Sub(start))
	}
}

// observePlugin records a plugin call started at start.
func (f *Framework) observePlugin(point, plugin string, start time.Time, code framework.Code) {
	if f.metrics != nil {
		f.metrics.ObservePlugin(f.profileName, point, plugin, code, f.clock.Now().Sub(start))
	}
}
