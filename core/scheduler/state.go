package scheduler

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// clusterState is what the caller sent, admitted (validated and
// defaulted by the kinds' admission, core/podadmission): every pod in its
// current version, the namespaces and disruption budgets, the pods the
// scheduler evicted, and
// each pending pod's record (its scheduling status, as kube would write it
// on the pod: the last diagnosis, when it was queued). The state-in calls
// change it, under the scheduler's ingestMu, and raise the cluster events;
// the scheduling loop and the View read it. It knows nothing of the queue,
// the cache or the frameworks.
//
// Locks: mu guards pods, uidByKey, records and evicted. It is a
// leaf but for the scheduler's bindsMu, which the binding cycle takes
// under it (a leaf itself). namespaces and pdbs have their own leaf locks;
// pdbs reads the pods under mu, never holding its own.
type clusterState struct {
	mu       sync.RWMutex
	pods     map[string]*model.Pod // current version, by UID
	uidByKey map[string]string     // namespace/name -> UID
	records  map[string]*podRecord // pending pods' scheduling status
	evicted  map[string]bool       // pods evicted and not deleted yet, true if by preemption (evictions.go)

	namespaces *namespaces
	pdbs       *pdbs
}

func newClusterState() *clusterState {
	c := &clusterState{
		pods:       make(map[string]*model.Pod),
		uidByKey:   make(map[string]string),
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

// holdEvicted returns the version of an upserted pod to keep: a pod the
// scheduler evicted stays terminating (by preemption, if that was the
// cause) whatever the upsert says, until it is deleted (evictions.go). It
// is read under mu, in the same state-in call as the pod is stored: a mark
// the cycle sets between an admission and its apply is not lost. cur is
// returned as it is when no mark applies.
func (c *clusterState) holdEvicted(cur *model.Pod) *model.Pod {
	c.mu.RLock()
	preempted, evicted := c.evicted[cur.UID]
	c.mu.RUnlock()
	if !evicted || cur.Terminating && (cur.Preempted || !preempted) {
		return cur
	}
	return markedEvicted(cur, preempted)
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
