package statesvc

import (
	"fmt"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/convert"
)

// requestCheck refuses, within one request (an Apply, a Sync batch), what
// the Kubernetes API server would never hold together: two pods of one
// uid under different names, two PriorityClasses both the global default.
// The later object is refused, the earlier one applied. Across requests
// Berth does not refuse a second global default: objects arrive in any
// order (a re-list may send the new default before the old one's update),
// and with several the lowest value wins, as in Kubernetes.
type requestCheck struct {
	uids          map[string]podAt
	globalDefault int // index of the first global default; -1: none
	defaultName   string
}

type podAt struct {
	index           int
	namespace, name string
}

func newRequestCheck() *requestCheck { return &requestCheck{globalDefault: -1} }

// check is nil for the object at index i of the request, or why it is
// refused; field paths start at the Object, as an ObjectError's do.
func (c *requestCheck) check(i int, o *berthv1.Object) error {
	if p := o.GetPod(); p != nil && p.GetUid() != "" {
		if prev, ok := c.uids[p.GetUid()]; ok && (prev.namespace != p.GetNamespace() || prev.name != p.GetName()) {
			return &convert.FieldError{Path: "pod.uid", Reason: fmt.Sprintf("uid %s is also the uid of pod %s/%s (object %d of this request): a uid names one pod",
				convert.Clip(p.GetUid(), 64), prev.namespace, prev.name, prev.index)}
		}
		if c.uids == nil {
			c.uids = map[string]podAt{}
		}
		if _, ok := c.uids[p.GetUid()]; !ok {
			c.uids[p.GetUid()] = podAt{i, p.GetNamespace(), p.GetName()}
		}
	}
	if pc := o.GetPriorityClass(); pc != nil && pc.GetGlobalDefault() {
		if c.globalDefault >= 0 && c.defaultName != pc.GetName() {
			return &convert.FieldError{Path: "priority_class.global_default", Reason: fmt.Sprintf("PriorityClass %s (object %d of this request) is the global default already: only one may be",
				c.defaultName, c.globalDefault)}
		}
		if c.globalDefault < 0 {
			c.globalDefault, c.defaultName = i, pc.GetName()
		}
	}
	return nil
}
