package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

type watchOptions struct {
	fromRevision  uint64
	output        string
	idleTimeout   time.Duration
	schedulerName string
}

func (a *app) watchCommand() *cobra.Command {
	var o watchOptions
	cmd := &cobra.Command{
		Use:   "watch [--from-revision N] [-o text|json] [--idle-timeout D] [--scheduler-name NAME]",
		Short: "Follow berthd's decisions (bind, evict, nominate, clear_nomination, unschedulable, deallocate_claim, admit, evict_workload)",
		Long: `watch streams berthd's decisions through DecisionService.Watch, in revision
order, until interrupted, until berthd ends the stream, or, with
--idle-timeout, once no decision has arrived for that long (exit 0).

--from-revision 0 (the default) shows only decisions made from now on; N > 0
replays every decision from revision N first. A revision berthd has
compacted away ends the watch with exit 1 and says the oldest one kept.

-o json prints one object per decision:
  {"revision":N,"type":"bind|evict|nominate|clear_nomination|unschedulable|deallocate_claim|admit|evict_workload",
   "pod":"ns/name","node":...,"preemptor":...,"cause":...,"reason":...,"message":...,
   "claims":[{"claim":"ns/name","devices":["driver/pool/device",...]}],
   "workload":"ns/name","clusterQueue":...,"podSets":[{"name":...,"count":N,"flavors":{"cpu":"flavor"}}]}
("pod" is the pod acted on: for evict, the victim, with its "cause":
preemption (and its "preemptor"), taint, api, node_pressure, deschedule,
defragment or quota (its Kueue workload was preempted; "reason" names the
preemptor); for deallocate_claim, the claim's last consumer; "node" for
clear_nomination is the node the nomination was on; "claims" are a bind's
device allocations, or the claim a deallocate_claim frees with the devices
it held. admit and evict_workload are about a Kueue "workload" and its
"clusterQueue", with no "pod": admit's "podSets" are the flavors given,
evict_workload's
"preemptor" the preempting workload and "reason" Kueue's reason.)`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.watch(cmd.Context(), &o)
		},
	}
	fs := cmd.Flags()
	fs.Uint64Var(&o.fromRevision, "from-revision", 0, "replay decisions from this revision on (0: only new ones)")
	outputFlag(fs, &o.output, "text", "output format: text or json (one object per line)")
	fs.DurationVar(&o.idleTimeout, "idle-timeout", 0, "exit 0 once no decision has arrived for this long (0: never)")
	fs.StringVar(&o.schedulerName, "scheduler-name", "", "only decisions of this scheduling profile")
	return cmd
}

// watchLine is a decision as -o json prints it.
type watchLine struct {
	Revision  uint64 `json:"revision"`
	Type      string `json:"type"`
	Pod       string `json:"pod,omitempty"`
	Node      string `json:"node,omitempty"`
	Preemptor string `json:"preemptor,omitempty"`
	// Cause is an evict's: preemption, taint, api, node_pressure,
	// deschedule, defragment or quota.
	Cause   string `json:"cause,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// Claims are a Bind's allocations, or the claim a DeallocateClaim
	// frees.
	Claims []claimLine `json:"claims,omitempty"`
	// Workload and ClusterQueue are an admit's or evict_workload's;
	// PodSets an admit's flavors.
	Workload     string       `json:"workload,omitempty"`
	ClusterQueue string       `json:"clusterQueue,omitempty"`
	PodSets      []podSetLine `json:"podSets,omitempty"`
	// HeldPod is a bind's of a pod Berth holds for an explicit Workload
	// (Bind.held_pod): the pod set whose template the pod is run from.
	HeldPod *heldPodLine `json:"heldPod,omitempty"`
}

// heldPodLine names the Workload ("namespace/name"), pod set and index
// of a pod Berth holds.
type heldPodLine struct {
	Workload string `json:"workload"`
	PodSet   string `json:"podSet"`
	Index    int32  `json:"index"`
}

// podSetLine is one pod set of an admit: its pods admitted and the flavor
// of each resource.
type podSetLine struct {
	Name    string            `json:"name"`
	Count   int32             `json:"count"`
	Flavors map[string]string `json:"flavors,omitempty"`
}

// claimLine is one claim with its devices ("driver/pool/device").
type claimLine struct {
	Claim   string   `json:"claim"`
	Devices []string `json:"devices,omitempty"`
}

func claimLineOf(namespace, name string, a *berthv1.AllocationResult) claimLine {
	l := claimLine{Claim: namespace + "/" + name}
	for _, r := range a.GetDevices() {
		l.Devices = append(l.Devices, r.GetDriver()+"/"+r.GetPool()+"/"+r.GetDevice())
	}
	return l
}

func lineOf(d *berthv1.Decision) watchLine {
	l := watchLine{Revision: d.GetRevision(), Pod: podKey(d.GetPod())}
	switch act := d.GetAction().(type) {
	case *berthv1.Decision_Bind:
		l.Type, l.Node = "bind", act.Bind.GetNode()
		if h := act.Bind.GetHeldPod(); h != nil {
			l.HeldPod = &heldPodLine{Workload: d.GetPod().GetNamespace() + "/" + h.GetWorkloadName(), PodSet: h.GetPodSet(), Index: h.GetIndex()}
		}
		for _, c := range act.Bind.GetClaims() {
			l.Claims = append(l.Claims, claimLineOf(c.GetNamespace(), c.GetName(), c.GetAllocation()))
		}
	case *berthv1.Decision_DeallocateClaim:
		x := act.DeallocateClaim
		l.Type, l.Reason = "deallocate_claim", x.GetReason()
		l.Claims = []claimLine{claimLineOf(x.GetNamespace(), x.GetName(), x.GetAllocation())}
	case *berthv1.Decision_Evict:
		l.Type, l.Node, l.Reason = "evict", act.Evict.GetNode(), act.Evict.GetReason()
		l.Preemptor, l.Cause = podKey(act.Evict.GetPreemptor()), evictCauses[act.Evict.GetCause()].label
	case *berthv1.Decision_Nominate:
		l.Type, l.Node = "nominate", act.Nominate.GetNode()
	case *berthv1.Decision_ClearNomination:
		l.Type, l.Node, l.Reason = "clear_nomination", act.ClearNomination.GetPreviousNode(), act.ClearNomination.GetReason()
	case *berthv1.Decision_Unschedulable:
		l.Type, l.Message = "unschedulable", act.Unschedulable.GetMessage()
	case *berthv1.Decision_Admit:
		x := act.Admit
		l.Type, l.Workload, l.ClusterQueue = "admit", x.GetWorkloadNamespace()+"/"+x.GetWorkloadName(), x.GetClusterQueue()
		for _, ps := range x.GetPodSets() {
			l.PodSets = append(l.PodSets, podSetLine{Name: ps.GetName(), Count: ps.GetCount(), Flavors: ps.GetFlavors()})
		}
	case *berthv1.Decision_EvictWorkload:
		x := act.EvictWorkload
		l.Type, l.Workload, l.ClusterQueue = "evict_workload", x.GetWorkloadNamespace()+"/"+x.GetWorkloadName(), x.GetClusterQueue()
		l.Preemptor, l.Reason, l.Message = x.GetPreemptedBy(), x.GetReason(), x.GetMessage()
	default:
		l.Type = "unknown"
	}
	return l
}

// text is the line for people.
func (l watchLine) text() string {
	var b strings.Builder
	if l.Workload != "" {
		return l.workloadText()
	}
	fmt.Fprintf(&b, "%d %s %s", l.Revision, l.Type, l.Pod)
	switch l.Type {
	case "bind", "nominate":
		fmt.Fprintf(&b, " -> %s", l.Node)
		if h := l.HeldPod; h != nil {
			fmt.Fprintf(&b, " (held for workload %s, pod set %s)", h.Workload, h.PodSet)
		}
	case "evict":
		fmt.Fprintf(&b, " from %s", l.Node)
		if l.Preemptor != "" {
			fmt.Fprintf(&b, " for %s", l.Preemptor)
		} else if text := causeText(l.Cause); text != "" {
			fmt.Fprintf(&b, " (%s)", text)
		}
	case "clear_nomination":
		fmt.Fprintf(&b, " (was %s)", l.Node)
	}
	for i, c := range l.Claims {
		sep := " ["
		if i > 0 {
			sep = "; "
		}
		fmt.Fprintf(&b, "%s%s: %s", sep, c.Claim, strings.Join(c.Devices, ", "))
		if i == len(l.Claims)-1 {
			b.WriteString("]")
		}
	}
	if l.Reason != "" {
		fmt.Fprintf(&b, ": %s", l.Reason)
	}
	if l.Message != "" {
		fmt.Fprintf(&b, ": %s", l.Message)
	}
	return b.String()
}

// workloadText is an admit's or evict_workload's line for people:
// "12 admit team-a/pod-x-1a2b3 to cq-a [main: cpu=on-demand, memory=on-demand]",
// "15 evict_workload team-a/pod-x-1a2b3 from cq-a for team-b/big (InCohortReclamation): message".
func (l watchLine) workloadText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s %s", l.Revision, l.Type, l.Workload)
	if l.Type == "admit" {
		fmt.Fprintf(&b, " to %s", l.ClusterQueue)
		for i, ps := range l.PodSets {
			sep := " ["
			if i > 0 {
				sep = "; "
			}
			fmt.Fprintf(&b, "%s%s", sep, ps.Name)
			if ps.Count != 1 {
				fmt.Fprintf(&b, " x%d", ps.Count)
			}
			var flavors []string
			for _, r := range slices.Sorted(maps.Keys(ps.Flavors)) {
				flavors = append(flavors, r+"="+ps.Flavors[r])
			}
			if len(flavors) > 0 {
				fmt.Fprintf(&b, ": %s", strings.Join(flavors, ", "))
			}
			if i == len(l.PodSets)-1 {
				b.WriteString("]")
			}
		}
		return b.String()
	}
	fmt.Fprintf(&b, " from %s", l.ClusterQueue)
	if l.Preemptor != "" {
		fmt.Fprintf(&b, " for %s", l.Preemptor)
	}
	if l.Reason != "" {
		fmt.Fprintf(&b, " (%s)", l.Reason)
	}
	if l.Message != "" {
		fmt.Fprintf(&b, ": %s", l.Message)
	}
	return b.String()
}

// evictCause names an EvictCause: label as in berthd's metrics
// (berth_evictions_total{cause}) and watch -o json, text for people.
type evictCause struct{ label, text string }

// evictCauses are the causes berthd records; decisions written before it
// recorded one (UNSPECIFIED) were preemptions, which name their preemptor.
var evictCauses = map[berthv1.EvictCause]evictCause{
	berthv1.EvictCause_EVICT_CAUSE_PREEMPTION:    {"preemption", "preempted"},
	berthv1.EvictCause_EVICT_CAUSE_TAINT:         {"taint", "NoExecute taint"},
	berthv1.EvictCause_EVICT_CAUSE_API:           {"api", "eviction API"},
	berthv1.EvictCause_EVICT_CAUSE_NODE_PRESSURE: {"node_pressure", "node pressure"},
	berthv1.EvictCause_EVICT_CAUSE_DESCHEDULE:    {"deschedule", "descheduled"},
	berthv1.EvictCause_EVICT_CAUSE_DEFRAGMENT:    {"defragment", "defragmented"},
	berthv1.EvictCause_EVICT_CAUSE_QUOTA:         {"quota", "Kueue preemption"},
}

// causeText is the text of the cause labelled label, "" for none.
func causeText(label string) string {
	for _, c := range evictCauses {
		if c.label == label {
			return c.text
		}
	}
	return ""
}

func podKey(p *berthv1.PodRef) string {
	if p == nil {
		return ""
	}
	return p.GetNamespace() + "/" + p.GetName()
}

// idleTimer is the --idle-timeout timer; tests replace it.
type idleTimer interface {
	C() <-chan time.Time
	// Reset restarts the timer after a decision arrived.
	Reset(d time.Duration)
	Stop()
}

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time   { return r.t.C }
func (r realTimer) Reset(d time.Duration) { r.t.Reset(d) }
func (r realTimer) Stop()                 { r.t.Stop() }

func newRealTimer(d time.Duration) idleTimer { return realTimer{time.NewTimer(d)} }

func (a *app) watch(ctx context.Context, o *watchOptions) error {
	if err := oneOf("output", o.output, "text", "json"); err != nil {
		return err
	}
	if o.idleTimeout < 0 {
		return usageErrorf("--idle-timeout must not be negative, got %s", o.idleTimeout)
	}
	c, err := a.conn.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	logID := "" // the log's identity, sent when resuming on another replica
	open := func(from uint64) (<-chan watchRecv, error) {
		stream, err := c.decision.Watch(ctx, &berthv1.WatchRequest{FromRevision: from, SchedulerName: o.schedulerName, LogId: logID})
		if err != nil {
			return nil, err
		}
		return receiveWatch(ctx, stream), nil
	}
	msgs, err := open(o.fromRevision)
	if err != nil {
		return c.err(ctx, err, "")
	}
	var idle <-chan time.Time
	var timer idleTimer
	if o.idleTimeout > 0 {
		timer = a.startIdleTimer(o.idleTimeout)
		defer timer.Stop()
		idle = timer.C()
	}
	enc := json.NewEncoder(a.out)
	next := o.fromRevision
	received := false // a resume hint makes sense only once something came
	var tries replicaTries
	for {
		var m watchRecv
		select {
		case <-idle:
			return nil
		case <-ctx.Done():
			return nil // interrupted: a normal way to stop watching
		case m = <-msgs:
		}
		if m.err != nil && c.anotherReplica(ctx, m.err, &tries) {
			// Every replica serves the same log: resume on the next.
			if msgs, err = open(next); err != nil {
				return c.err(ctx, err, "")
			}
			continue
		}
		if m.err != nil {
			if !received {
				next = 0
			}
			return a.watchEnded(ctx, c, m.err, next)
		}
		received, tries = true, replicaTries{}
		if id := m.resp.GetLogId(); id != "" {
			logID = id
		}
		if err := a.printDecisions(enc, o.output, m.resp.GetDecisions()); err != nil {
			return err
		}
		if r := m.resp.GetNextRevision(); r > next {
			next = r
		}
		if timer != nil && len(m.resp.GetDecisions()) > 0 {
			timer.Reset(o.idleTimeout)
		}
	}
}

// watchRecv is what one Recv on the watch stream gave.
type watchRecv struct {
	resp *berthv1.WatchResponse
	err  error
}

// receiveWatch receives from the stream on its own goroutine, so the
// watch can wait for a message, the idle timer and ctx at once. The
// goroutine ends after the first error, or with ctx.
func receiveWatch(ctx context.Context, stream grpc.ServerStreamingClient[berthv1.WatchResponse]) <-chan watchRecv {
	msgs := make(chan watchRecv)
	go func() {
		for {
			resp, err := stream.Recv()
			select {
			case msgs <- watchRecv{resp, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return msgs
}

// startIdleTimer starts the --idle-timeout timer (the test's, if set).
func (a *app) startIdleTimer(d time.Duration) idleTimer {
	newTimer := a.newTimer
	if newTimer == nil {
		newTimer = newRealTimer
	}
	return newTimer(d)
}

// printDecisions writes one line per decision in the output format.
func (a *app) printDecisions(enc *json.Encoder, output string, decisions []*berthv1.Decision) error {
	for _, d := range decisions {
		l := lineOf(d)
		var err error
		if output == "json" {
			err = enc.Encode(l)
		} else {
			_, err = fmt.Fprintln(a.out, l.text())
		}
		if err != nil {
			return failedf("writing: %w", err)
		}
	}
	return nil
}

// fromZeroNote warns off the other way to watch again.
const fromZeroNote = "--from-revision 0 shows only decisions made from now on, skipping those kept"

// oldestRevision is the first revision berthd's log keeps: 1, unless a
// watch from 1 is refused as compacted, naming the oldest kept.
func oldestRevision(ctx context.Context, c *client) uint64 {
	ctx, cancel := context.WithTimeout(ctx, min(serverInfoTimeout, c.timeout))
	defer cancel() // ends the probe's stream
	stream, err := c.decision.Watch(ctx, &berthv1.WatchRequest{FromRevision: 1})
	if err == nil {
		_, err = stream.Recv()
	}
	for _, d := range status.Convert(err).Details() {
		if i, ok := d.(*errdetails.ErrorInfo); ok && i.GetReason() == "REVISION_COMPACTED" {
			if oldest, perr := strconv.ParseUint(i.GetMetadata()["oldest_revision"], 10, 64); perr == nil && oldest > 0 {
				return oldest
			}
		}
	}
	return 1
}

// watchEnded explains why the stream ended; next > 0 is where to resume.
func (a *app) watchEnded(ctx context.Context, c *client, err error, next uint64) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	if ctx.Err() != nil {
		return nil
	}
	st := status.Convert(err)
	if st.Code() == codes.OutOfRange {
		var info *errdetails.ErrorInfo
		for _, d := range st.Details() {
			if i, ok := d.(*errdetails.ErrorInfo); ok {
				info = i
			}
		}
		switch {
		case info.GetReason() == "REVISION_COMPACTED" && info.GetMetadata()["oldest_revision"] != "":
			oldest := info.GetMetadata()["oldest_revision"]
			return failedf("decisions before revision %s were compacted away; watch again with --from-revision %s, the oldest kept (%s), and check binds still waiting with 'berthctl get pending'", oldest, oldest, fromZeroNote)
		case info.GetReason() == "REVISION_NOT_WRITTEN":
			return failedf("the revision asked for is beyond the end of this berthd's log (its next revision is %s): it came from another log; watch again with --from-revision %d, the oldest this log keeps (%s)",
				info.GetMetadata()["next_revision"], oldestRevision(ctx, c), fromZeroNote)
		}
		return failedf("the revision asked for is out of range: %s", st.Message())
	}
	mapped := c.err(ctx, err, "")
	if next > 0 {
		return &exitError{code: exitCode(mapped), err: fmt.Errorf("%w (resume with --from-revision %d)", mapped, next)}
	}
	return mapped
}
