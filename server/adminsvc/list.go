package adminsvc

import (
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/queue"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/errmap"
)

// Page sizes of the list RPCs.
const (
	defaultPageSize = 100
	maxPageSize     = 1000
)

// page is a validated page request. Pages are ordered by key (pod
// namespace/name, node name); the token is the key of the last entry
// returned.
type page struct {
	size  int
	after string // "" for the first page
}

// Keys of the pages: isPodKey for pods and nominations, isNodeKey for
// nodes.
// isPodKey and isNodeKey tell a page token's key is one a page could
// end with: a valid namespace/name, a valid node name.
func isPodKey(k string) bool {
	ns, name, ok := strings.Cut(k, "/")
	return ok && convert.CheckName("", ns, true) == nil && convert.CheckName("", name, true) == nil
}

func isNodeKey(k string) bool { return convert.CheckName("", k, true) == nil }

// maxPageToken is longer than any token of a valid key (namespace/name in
// base64): a longer one is refused before it is decoded.
const maxPageToken = 512

func parsePage(size int32, token string, isKey func(string) bool) (page, error) {
	if size < 0 {
		return page{}, errmap.Status(&convert.FieldError{Path: "page_size", Reason: fmt.Sprintf("must not be negative, got %d", size)})
	}
	p := page{size: int(size)}
	switch {
	case size == 0:
		p.size = defaultPageSize
	case size > maxPageSize:
		p.size = maxPageSize
	}
	if len(token) > maxPageToken {
		return page{}, errmap.Status(&convert.FieldError{Path: "page_token", Reason: fmt.Sprintf("malformed (%d bytes, a token is at most %d); pass next_page_token of the previous page unchanged", len(token), maxPageToken)})
	}
	if token != "" {
		raw, err := base64.RawURLEncoding.DecodeString(token)
		if err != nil || !isKey(string(raw)) {
			return page{}, errmap.Status(&convert.FieldError{Path: "page_token", Reason: "malformed; pass next_page_token of the previous page unchanged"})
		}
		p.after = string(raw)
	}
	return p, nil
}

func pageToken(key string) string { return base64.RawURLEncoding.EncodeToString([]byte(key)) }

// ListPending lists the pods not bound yet, by namespace/name.
func (s *Service) ListPending(_ context.Context, req *berthv1.ListPendingRequest) (*berthv1.ListPendingResponse, error) {
	pg, err := parsePage(req.GetPageSize(), req.GetPageToken(), isPodKey)
	if err != nil {
		return nil, err
	}
	want := map[berthv1.QueueState]bool{}
	for i, st := range req.GetStates() {
		if _, known := berthv1.QueueState_name[int32(st)]; !known || st == berthv1.QueueState_QUEUE_STATE_UNSPECIFIED || st == berthv1.QueueState_QUEUE_STATE_BOUND {
			return nil, errmap.Status(&convert.FieldError{Path: fmt.Sprintf("states[%d]", i),
				Reason: fmt.Sprintf("%s cannot be listed: the states of pending pods are ACTIVE to BINDING and IGNORED", st)})
		}
		want[st] = true
	}
	resp := &berthv1.ListPendingResponse{}
	for _, pod := range s.admin.Pods() {
		if (pod.NodeName != "" && !s.bindAwaiting(pod.UID)) || pod.Key() <= pg.after {
			continue
		}
		if req.GetSchedulerName() != "" && pod.SchedulerName != req.GetSchedulerName() {
			continue
		}
		st, ex, ok := s.stateOf(pod)
		if !ok || st == berthv1.QueueState_QUEUE_STATE_BOUND || (len(want) > 0 && !want[st]) {
			continue
		}
		if len(resp.Pods) == pg.size {
			resp.NextPageToken = pageToken(resp.Pods[len(resp.Pods)-1].GetPod().GetNamespace() + "/" + resp.Pods[len(resp.Pods)-1].GetPod().GetName())
			break
		}
		p := &berthv1.PendingPod{
			Pod: convert.PodRefOf(ex.Pod), SchedulerName: ex.Pod.SchedulerName, State: st,
			Priority: ex.Pod.Priority, Attempts: uint32(ex.Queue.Attempts), NominatedNode: ex.Queue.NominatedNode,
			EnqueuedTime: timestamp(ex.Queued),
		}
		if st == berthv1.QueueState_QUEUE_STATE_BINDING {
			p.Node, p.BindRevision = ex.Node, s.bindRevision(ex.Pod.UID)
		}
		resp.Pods = append(resp.Pods, p)
	}
	return resp, nil
}

// maxContainsLength bounds ListPods' contains: longer than any
// namespace/name, it could match nothing.
const maxContainsLength = 253

// ListPods lists every pod, bound ones included, with its state, by
// namespace/name.
func (s *Service) ListPods(_ context.Context, req *berthv1.ListPodsRequest) (*berthv1.ListPodsResponse, error) {
	pg, err := parsePage(req.GetPageSize(), req.GetPageToken(), isPodKey)
	if err != nil {
		return nil, err
	}
	want := map[berthv1.QueueState]bool{}
	for i, st := range req.GetStates() {
		if _, known := berthv1.QueueState_name[int32(st)]; !known || st == berthv1.QueueState_QUEUE_STATE_UNSPECIFIED {
			return nil, errmap.Status(&convert.FieldError{Path: fmt.Sprintf("states[%d]", i), Reason: fmt.Sprintf("%s is not a state of a pod", st)})
		}
		want[st] = true
	}
	for _, check := range []error{
		convert.CheckName("namespace", req.GetNamespace(), false),
		convert.CheckName("node", req.GetNode(), false),
		convert.CheckLength("contains", req.GetContains(), maxContainsLength),
	} {
		if check != nil {
			return nil, errmap.Status(check)
		}
	}
	resp := &berthv1.ListPodsResponse{}
	for _, pod := range s.admin.Pods() {
		switch {
		case pod.Key() <= pg.after,
			req.GetNamespace() != "" && pod.Namespace != req.GetNamespace(),
			req.GetSchedulerName() != "" && pod.SchedulerName != req.GetSchedulerName(),
			!strings.Contains(pod.Key(), req.GetContains()):
			continue
		}
		st, ex, ok := s.stateOf(pod)
		if !ok || (len(want) > 0 && !want[st]) || (req.GetNode() != "" && ex.Node != req.GetNode()) {
			continue
		}
		if len(resp.Pods) == pg.size {
			last := resp.Pods[len(resp.Pods)-1].GetPod()
			resp.NextPageToken = pageToken(last.GetNamespace() + "/" + last.GetName())
			break
		}
		p := &berthv1.PendingPod{
			Pod: convert.PodRefOf(pod), SchedulerName: pod.SchedulerName, State: st, Priority: pod.Priority,
			Attempts: uint32(ex.Queue.Attempts), NominatedNode: ex.Queue.NominatedNode, EnqueuedTime: timestamp(ex.Queued),
		}
		switch st {
		case berthv1.QueueState_QUEUE_STATE_BINDING:
			p.Node, p.BindRevision = ex.Node, s.bindRevision(pod.UID)
		case berthv1.QueueState_QUEUE_STATE_BOUND:
			p.Node = ex.Node
		}
		resp.Pods = append(resp.Pods, p)
	}
	return resp, nil
}

// ListNominations lists the nominations in force, by pod namespace/name.
// A nomination whose pod Berth does not hold was restored from the store
// and waits for its pod to be re-sent.
func (s *Service) ListNominations(_ context.Context, req *berthv1.ListNominationsRequest) (*berthv1.ListNominationsResponse, error) {
	read := func() ([]queue.Nomination, error) { return s.admin.Nominations(), nil }
	return listNominations(req, read, s.nomination)
}

// nomination is n with its pod's priority while Berth holds the pod, and
// marked restored otherwise.
func (s *Service) nomination(n queue.Nomination) *berthv1.Nomination {
	nom := restoredNomination(n)
	if pod, ok := s.admin.Pod(n.PodUID); ok {
		nom.Pod, nom.Priority, nom.Restored = convert.PodRefOf(pod), pod.Priority, false
	}
	if s.opts.Revisions != nil {
		nom.Revision, _ = s.opts.Revisions.NominationRevision(n.PodUID)
	}
	return nom
}

// ListStoredNominations answers ListNominations from the nominations read
// from the store alone, as a follower replica does (server/replica): the
// same validation, order and page tokens as ListNominations, so that a
// client may page across replicas. Holding no pods, it lists each
// nomination as restored, without priority or revision: what a leader
// lists right after it loaded the same store.
func ListStoredNominations(req *berthv1.ListNominationsRequest, read func() ([]queue.Nomination, error)) (*berthv1.ListNominationsResponse, error) {
	return listNominations(req, read, restoredNomination)
}

func restoredNomination(n queue.Nomination) *berthv1.Nomination {
	ns, name, _ := strings.Cut(n.PodKey, "/")
	return &berthv1.Nomination{Pod: &berthv1.PodRef{Namespace: ns, Name: name, Uid: n.PodUID}, Node: n.NodeName, Restored: true}
}

// listNominations pages the nominations read, by pod namespace/name;
// entry converts one. The request is checked before anything is read.
func listNominations(req *berthv1.ListNominationsRequest, read func() ([]queue.Nomination, error),
	entry func(queue.Nomination) *berthv1.Nomination) (*berthv1.ListNominationsResponse, error) {
	pg, err := parsePage(req.GetPageSize(), req.GetPageToken(), isPodKey)
	if err != nil {
		return nil, err
	}
	noms, err := read()
	if err != nil {
		return nil, errmap.Status(err)
	}
	// By uid among pods of one name (a pod deleted and created again), so
	// that every replica lists them in one order.
	slices.SortFunc(noms, func(a, b queue.Nomination) int {
		return cmp.Or(cmp.Compare(a.PodKey, b.PodKey), cmp.Compare(a.PodUID, b.PodUID))
	})
	resp := &berthv1.ListNominationsResponse{}
	for _, n := range noms {
		if n.PodKey <= pg.after || (req.GetNode() != "" && n.NodeName != req.GetNode()) {
			continue
		}
		if len(resp.Nominations) == pg.size {
			last := resp.Nominations[len(resp.Nominations)-1].GetPod()
			resp.NextPageToken = pageToken(last.GetNamespace() + "/" + last.GetName())
			break
		}
		resp.Nominations = append(resp.Nominations, entry(n))
	}
	return resp, nil
}
