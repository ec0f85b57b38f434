package scheduler

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/priority"
)

// clusterState is what the caller sent, admitted (validated and
// defaulted): every pod in its current version, the priority classes, the
// namespaces and disruption budgets, the pods the scheduler evicted, and
// each pending pod's record (its scheduling status, as kube would write it
// on the pod: the last diagnosis, when it was queued). The state-in calls
// change it, under the scheduler's ingestMu, and raise the cluster events;
// the scheduling loop and the View read it. It knows nothing of the queue,
// the cache or the frameworks.
//
// Locks: mu guards pods, uidByKey, classes, records and evicted. It is a
// leaf but for the scheduler's bindsMu, which the binding cycle takes
// under it (a leaf itself). namespaces and pdbs have their own leaf locks;
// pdbs reads the pods under mu, never holding its own.
type clusterState struct {
	mu       sync.RWMutex
	pods     map[string]*model.Pod // current version, by UID
	uidByKey map[string]string     // namespace/name -> UID
	classes  *priority.Classes
	records  map[string]*podRecord // pending pods' scheduling status
	evicted  map[string]bool       // pods evicted and not deleted yet, true if by preemption (evictions.go)

	namespaces *namespaces
	pdbs       *pdbs
}

func newClusterState() *clusterState {
	c := &clusterState{
		pods:       make(map[string]*model.Pod),
		uidByKey:   make(map[string]string),
		classes:    priority.NewClasses(),
		records:    make(map[string]*podRecord),
		evicted:    make(map[string]bool),
		namespaces: newNamespaces(),
	}
	c.pdbs = newPDBs(c.podList)
	return c
}

// lookup returns the current version of a pod.
func (c *clusterState) lookup(uid string) (*model.Pod, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	p, ok := c.pods[uid]
	return p, ok
}

// find looks a pod up by namespace and name.
func (c *clusterState) find(namespace, name string) (*model.Pod, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	p, ok := c.pods[c.uidByKey[namespace+"/"+name]]
	return p, ok
}

func (c *clusterState) store(p *model.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pods[p.UID] = p
	c.uidByKey[p.Key()] = p.UID
}

// remove forgets a deleted pod, with its eviction and its record.
func (c *clusterState) remove(p *model.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pods, p.UID)
	delete(c.evicted, p.UID)
	delete(c.records, p.UID)
	if c.uidByKey[p.Key()] == p.UID {
		delete(c.uidByKey, p.Key())
	}
}

// podList lists every pod, in no order.
func (c *clusterState) podList() []*model.Pod {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*model.Pod, 0, len(c.pods))
	for _, p := range c.pods {
		out = append(out, p)
	}
	return out
}

// sortedPods lists every pod by namespace/name.
func (c *clusterState) sortedPods() []*model.Pod {
	out := c.podList()
	slices.SortFunc(out, func(a, b *model.Pod) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}

func (c *clusterState) numPods() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.pods)
}

// admit returns the version of the pod the scheduler keeps: the default
// scheduler name applied and, for a new pod, its priority resolved as
// Kubernetes' priority admission does (priority.Classes.Admit: a priority
// the pod carries is trusted, a bound pod is never refused). Priority is
// fixed at creation: an update keeps the priority the pod was admitted
// with.
//
// A pod the scheduler evicted stays terminating (by preemption, if that
// was the cause) whatever the upsert says (evictions.go).
func (c *clusterState) admit(in, old *model.Pod) (*model.Pod, error) {
	cur := *in
	if cur.SchedulerName == "" {
		cur.SchedulerName = model.DefaultSchedulerName
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if preempted, evicted := c.evicted[cur.UID]; evicted {
		cur.Terminating, cur.Preempted = true, cur.Preempted || preempted
	}
	if old != nil {
		cur.Priority, cur.PreemptionPolicy, cur.PriorityClassName = old.Priority, old.PreemptionPolicy, old.PriorityClassName
		cur.SchedulingGroup = old.SchedulingGroup // group membership is fixed, as priority
		return &cur, nil
	}
	if err := c.classes.Admit(&cur); err != nil {
		return nil, fmt.Errorf("admit pod %s: %w", cur.Key(), err)
	}
	return &cur, nil
}

// admitGroup resolves a new pod group's priority as kube 1.37's Priority
// admission does for PodGroups: a priority given is kept, a named class
// gives its value (an unknown one fails with *priority.UnknownClassError),
// otherwise the global default class's value, else 0. The class's
// preemption policy is not applied: with the alpha PodGroupPreemptionPolicy
// gate kube's API server defaults the group's own to PreemptLowerPriority
// before admission, so a class's policy never becomes the group's (the
// admission refuses a group whose class has another; Berth, as kubeoracle,
// keeps the group's own, see groupPolicy).
func (c *clusterState) admitGroup(in *model.PodGroup) (*model.PodGroup, error) {
	g := *in
	c.mu.RLock()
	defer c.mu.RUnlock()
	switch {
	case g.RequestedPriority != nil:
		g.Priority = *g.RequestedPriority
	case g.PriorityClassName != "":
		pc, ok := c.classes.Get(g.PriorityClassName)
		if !ok {
			return nil, fmt.Errorf("admit pod group %s: %w", g.Key(), &priority.UnknownClassError{Name: g.PriorityClassName})
		}
		g.Priority = pc.Value
	default:
		g.Priority = 0
		if def, ok := c.classes.GlobalDefault(); ok {
			g.Priority = def.Value
		}
	}
	return &g, nil
}

// setClass adds or replaces a class and reports whether it was known.
func (c *clusterState) setClass(pc *model.PriorityClass) (known bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, known = c.classes.Get(pc.Name)
	return known, c.classes.Set(pc)
}

// deleteClass removes a class and returns it, if it was known.
func (c *clusterState) deleteClass(name string) (*model.PriorityClass, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pc, known := c.classes.Get(name)
	c.classes.Delete(name)
	return pc, known
}

func (c *clusterState) classList() []*model.PriorityClass {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.classes.List()
}

// applyNomination sets the pod's NominatedNodeName as a ModeOverride
// nomination says, the way kube's status patch followed by the informer
// update would. It returns the previous node, the current version of the
// pod and whether the pod is still known and pending.
func (c *clusterState) applyNomination(uid string, ni *framework.NominatingInfo) (string, *model.Pod, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur, ok := c.pods[uid]
	if !ok || cur.NodeName != "" {
		return "", nil, false
	}
	prev := cur.NominatedNodeName
	if ni != nil && ni.Mode == framework.ModeOverride && prev != ni.NominatedNodeName {
		updated := *cur
		updated.NominatedNodeName = ni.NominatedNodeName
		c.pods[uid] = &updated
		cur = &updated
	}
	return prev, cur, true
}

// podRecord is what the scheduler remembers of a pending pod, for Explain
// and the Reporter; it is forgotten once the pod is bound or deleted.
type podRecord struct {
	diagnosis   *Diagnosis
	reported    string    // the last message given to the Reporter
	queuedAt    time.Time // when the pod was queued
	bindFailure string    // the reason of the last bind reported failed
}

// recordLocked returns the pod's record, made if missing; nil when the
// pod is no longer held, so that no record outlives its pod. mu is held.
func (c *clusterState) recordLocked(uid string) *podRecord {
	if _, held := c.pods[uid]; !held {
		return nil
	}
	rec := c.records[uid]
	if rec == nil {
		rec = &podRecord{}
		c.records[uid] = rec
	}
	return rec
}

// updateRecord changes the record of a pod still held.
func (c *clusterState) updateRecord(uid string, f func(*podRecord)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rec := c.recordLocked(uid); rec != nil {
		f(rec)
	}
}

// record returns a copy of the pod's record; the zero record if none.
func (c *clusterState) record(uid string) podRecord {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if rec := c.records[uid]; rec != nil {
		return *rec
	}
	return podRecord{}
}

func (c *clusterState) forgetRecord(uid string) {
	c.mu.Lock()
	delete(c.records, uid)
	c.mu.Unlock()
}

// setDiagnosis keeps the pod's last failure and reports whether msg is to
// be reported: a rejection whose message differs from the last reported.
// Nothing is kept for a pod deleted meanwhile.
func (c *clusterState) setDiagnosis(uid string, d *Diagnosis, msg string, rejected bool) (report bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rec := c.recordLocked(uid)
	if rec == nil {
		return false
	}
	rec.diagnosis = d
	report = rejected && rec.reported != msg
	if report {
		rec.reported = msg
	}
	return report
}

// messages returns the last failure message of each pod that has one.
func (c *clusterState) messages(pods []PendingPod) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for i := range pods {
		if rec := c.records[pods[i].Pod.UID]; rec != nil && rec.diagnosis != nil {
			pods[i].Message = rec.diagnosis.Message
		}
	}
}

// markEvicted records the eviction of a held pod and returns its current
// version; false when the pod is not held (deleted meanwhile).
func (c *clusterState) markEvicted(uid string, preempted bool) (*model.Pod, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.pods[uid]
	if ok {
		c.evicted[uid] = c.evicted[uid] || preempted
	}
	return p, ok
}

// unmarkEvicted drops the pod's eviction and returns the pod.
func (c *clusterState) unmarkEvicted(uid string) (*model.Pod, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.evicted, uid)
	p, ok := c.pods[uid]
	return p, ok
}

// evictedUIDs lists the evicted pods' UIDs, sorted.
func (c *clusterState) evictedUIDs() []string {
	c.mu.RLock()
	out := make([]string, 0, len(c.evicted))
	for uid := range c.evicted {
		out = append(out, uid)
	}
	c.mu.RUnlock()
	slices.Sort(out)
	return out
}

func (c *clusterState) restoreEvictions(uids []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, uid := range uids {
		c.evicted[uid] = true
	}
}

// forgetUnknownEvictions drops the evictions of pods not held and returns
// their UIDs, sorted.
func (c *clusterState) forgetUnknownEvictions() []string {
	c.mu.Lock()
	var out []string
	for uid := range c.evicted {
		if _, ok := c.pods[uid]; !ok {
			delete(c.evicted, uid)
			out = append(out, uid)
		}
	}
	c.mu.Unlock()
	slices.Sort(out)
	return out
}
