package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/berthsched/berth"
	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// binding is an ExplainResponse of a pod whose Bind awaits an outcome.
func binding(name string, rev uint64) *berthv1.ExplainResponse {
	return &berthv1.ExplainResponse{
		Pod:   &berthv1.PodRef{Namespace: "default", Name: name, Uid: "u-" + name},
		State: berthv1.QueueState_QUEUE_STATE_BINDING, Node: "n1", BindRevision: rev,
	}
}

func TestConfirmAndFail(t *testing.T) {
	explain := map[string]*berthv1.ExplainResponse{
		"b":         binding("b", 7),
		"compacted": binding("compacted", 0),
		"done": {Pod: &berthv1.PodRef{Namespace: "default", Name: "done", Uid: "u-done"},
			State: berthv1.QueueState_QUEUE_STATE_BOUND, Node: "n3"},
	}
	report := func(name string, rev uint64, outcome berthv1.BindOutcome, reason string) *berthv1.ReportBindResultRequest {
		return &berthv1.ReportBindResultRequest{Pod: &berthv1.PodRef{Namespace: "default", Name: name, Uid: "u-" + name},
			Node: "n1", Revision: rev, Outcome: outcome, Reason: reason}
	}
	for _, tc := range []struct {
		name    string
		info    *berthv1.ServerInfoResponse
		args    []string
		want    result
		reports []*berthv1.ReportBindResultRequest
	}{
		{
			name: "confirm", args: []string{"confirm", "default/b"},
			want:    result{stdout: "pod default/b confirmed on n1 (bind revision 7)\n"},
			reports: []*berthv1.ReportBindResultRequest{report("b", 7, berthv1.BindOutcome_BIND_OUTCOME_CONFIRMED, "")},
		},
		{
			name: "fail with a message", args: []string{"fail", "b", "--message", "image pull failed"},
			want:    result{stdout: "pod default/b: bind to n1 (revision 7) reported failed; berthd queues the pod again after a backoff\n"},
			reports: []*berthv1.ReportBindResultRequest{report("b", 7, berthv1.BindOutcome_BIND_OUTCOME_FAILED, "image pull failed")},
		},
		{
			// berthd accepts any revision when it no longer knows the bind's.
			name: "revision compacted away", args: []string{"confirm", "compacted"},
			want:    result{stdout: "pod default/compacted confirmed on n1 (bind revision 0)\n"},
			reports: []*berthv1.ReportBindResultRequest{report("compacted", 1, berthv1.BindOutcome_BIND_OUTCOME_CONFIRMED, "")},
		},
		{
			name: "fail needs a message", args: []string{"fail", "b"},
			want: result{code: exitUsage, stderr: "berthctl: fail needs --message: why the pod could not be placed\nRun 'berthctl fail --help' for usage.\n"},
		},
		{
			name: "already bound", args: []string{"confirm", "done"},
			want: result{stdout: "pod default/done is already bound to n3\n"},
		},
		{
			name: "too late to fail", args: []string{"fail", "done", "--message", "x"},
			want: result{code: exitFailed, stderr: "berthctl: pod default/done is bound to n3, its bind confirmed: too late to fail it (delete the pod to stop it)\n"},
		},
		{
			name: "not binding", args: []string{"confirm", "shop/web"},
			want: result{code: exitFailed, stderr: "berthctl: pod shop/web has no bind awaiting an outcome: it is backoff (see berthctl explain shop/web)\n"},
		},
		{
			name: "not found", args: []string{"confirm", "ghost"},
			want: result{code: exitNotFound, stderr: "berthctl: pod default/ghost not found\n"},
		},
		{
			name: "not found while berthd waits for the re-list", args: []string{"confirm", "ghost"},
			info: &berthv1.ServerInfoResponse{AwaitingRelist: true},
			want: result{code: exitNotFound, stderr: "berthctl: pod default/ghost not found: " + restartNote + relistEnds + "\n"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeBerthd{explain: explain, info: tc.info}
			addr := f.start(t)
			got := berthctl(t, nil, "", append([]string{"--server", addr}, tc.args...)...)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if diff := cmp.Diff(tc.reports, f.reports, protocmp.Transform()); diff != "" {
				t.Errorf("ReportBindResult requests (-want +got):\n%s", diff)
			}
		})
	}
}

// What relistNote says of a berthd restarted on an earlier run's data,
// of a replica that took the lead, and how the wait ends.
const (
	restartNote = "berthd started on an earlier run's data and has had no re-list from the orchestrator since, so it holds only " +
		"what was sent after it started (it keeps decisions, nominations and binds across restarts, not nodes and pods)"
	leaderNote = "this replica took the lead (term 7) and has had no re-list from the orchestrator since, so it holds only " +
		"what was sent to it since (a new leader reads decisions, nominations and binds from the store, not nodes and pods)"
	relistEnds = "; the orchestrator's re-list (a Sync from RESYNC_BEGIN to RESYNC_END, or berthctl apply --prune) ends the wait, a plain apply does not"
	heldNote   = "; scheduling waits for the re-list or berthd's --initial-sync-timeout"
)

// Empty listings say they are empty and, when berthd waits for the
// orchestrator's re-list, why: a restart or a failover, as ServerInfo
// tells (an older berthd without ServerInfo: only that they are empty).
func TestRelistHints(t *testing.T) {
	waiting := &berthv1.ServerInfoResponse{AwaitingRelist: true, SchedulingHeld: true}
	newLeader := &berthv1.ServerInfoResponse{AwaitingRelist: true, Role: berthv1.ReplicaRole_REPLICA_ROLE_LEADER, Leader: "10.0.0.2:7070", Term: 7}
	for _, tc := range []struct {
		name       string
		info       *berthv1.ServerInfoResponse
		args       []string
		wantStderr string
	}{
		{"nodes while waiting", waiting, []string{"get", "nodes"}, "berthctl: no nodes yet: " + restartNote + relistEnds + heldNote + "\n"},
		{"pending while waiting, json", waiting, []string{"get", "pending", "-o", "json"}, "berthctl: no pending pods yet: " + restartNote + relistEnds + heldNote + "\n"},
		{"queue while waiting", waiting, []string{"get", "queue"}, "berthctl: no pods yet: " + restartNote + relistEnds + heldNote + "\n"},
		{"nodes after a failover", newLeader, []string{"get", "nodes"}, "berthctl: no nodes yet: " + leaderNote + relistEnds + "\n"},
		{"re-listed: simply empty", &berthv1.ServerInfoResponse{}, []string{"get", "nodes"}, "berthctl: no nodes\n"},
		{"a leader re-listed: simply empty", &berthv1.ServerInfoResponse{Role: berthv1.ReplicaRole_REPLICA_ROLE_LEADER, Term: 7}, []string{"get", "pending"}, "berthctl: no pending pods\n"},
		{"an older berthd", nil, []string{"get", "nodes"}, "berthctl: no nodes\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeBerthd{empty: true, info: tc.info}
			addr := f.start(t)
			got := berthctl(t, nil, "", append([]string{"--server", addr}, tc.args...)...)
			if got.code != exitOK || got.stderr != tc.wantStderr {
				t.Errorf("exit %d, stderr %q; want 0 and %q", got.code, got.stderr, tc.wantStderr)
			}
		})
	}
}

func TestVersionAndHelp(t *testing.T) {
	f := &fakeBerthd{info: &berthv1.ServerInfoResponse{Version: "v9, commit abc"}}
	addr := f.start(t)
	for _, tc := range []struct {
		args []string
		code int
		// stdout matches these lines' prefixes, in order.
		lines []string
	}{
		{[]string{"--version"}, exitOK, []string{"berthctl v" + berth.Release() + " (devel), commit "}},
		{[]string{"version", "--client"}, exitOK, []string{"berthctl v" + berth.Release() + " (devel), commit "}},
		{[]string{"--server", addr, "version"}, exitOK, []string{"berthctl v" + berth.Release() + " (devel), commit ", "berthd v9, commit abc at " + addr}},
		{[]string{"--server", "127.0.0.1:1", "version"}, exitUnavailable, []string{"berthctl v" + berth.Release() + " (devel), commit "}},
		{[]string{"help", "confirm"}, exitOK, []string{"confirm reports that the orchestrator placed a binding pod"}},
		{[]string{"help"}, exitOK, []string{"berthctl simulates Kubernetes manifests"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			got := berthctl(t, nil, "", tc.args...)
			lines := strings.Split(strings.TrimSuffix(got.stdout, "\n"), "\n")
			if got.code != tc.code || len(lines) < len(tc.lines) {
				t.Fatalf("exit %d, stdout %q; want exit %d and lines starting %q", got.code, got.stdout, tc.code, tc.lines)
			}
			for i, want := range tc.lines {
				if !strings.HasPrefix(lines[i], want) {
					t.Errorf("line %d %q, want it to start with %q", i, lines[i], want)
				}
			}
		})
	}
	// Help and completion are listed, no longer hidden.
	got := berthctl(t, nil, "", "--help")
	for _, want := range []string{"\n  completion ", "\n  help ", "\n  confirm ", "\n  fail ", "\n  version "} {
		if !strings.Contains(got.stdout, want) {
			t.Errorf("berthctl --help lacks %q", want)
		}
	}
	for _, l := range strings.Split(got.stdout, "\n") {
		if strings.HasPrefix(l, "      --server ") && strings.Count(l, "default") != 2 { // "sets the default (default ...)"
			t.Errorf("--server's help names more than one default: %q", l)
		}
	}
}
