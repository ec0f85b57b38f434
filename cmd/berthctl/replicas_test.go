package main

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// deadAddr is a loopback address nothing listens on.
func deadAddr(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	return addr
}

// --server lists replicas: writes reach the leader a follower names, reads
// the first replica that answers.
func TestServerListFollowsTheLeader(t *testing.T) {
	file := filepath.Join(t.TempDir(), "app.yaml")
	writeFile(t, file, strings.Join(strings.Split(applyManifest, "---\n")[:3], "---\n"))
	tests := []struct {
		name string
		// servers lists "dead", "follower" and "leader"; the follower names
		// the leader.
		servers       []string
		args          []string
		stdout        string
		leaderSyncs   int // Sync requests the leader received
		followerCalls []string
	}{
		{
			name: "apply through a follower", servers: []string{"follower"}, args: []string{"apply", "-f", file},
			stdout: "3 applied\n", leaderSyncs: 1, followerCalls: []string{"/berth.v1.StateService/Sync"},
		},
		{
			name: "apply past a replica that is down", servers: []string{"dead", "follower", "leader"}, args: []string{"apply", "-f", file},
			stdout: "3 applied\n", leaderSyncs: 1, followerCalls: []string{"/berth.v1.StateService/Sync"},
		},
		{
			name: "delete through a follower", servers: []string{"follower", "leader"}, args: []string{"delete", "node", "n1"},
			stdout: "Node n1 deleted\n", followerCalls: []string{"/berth.v1.StateService/Delete"},
		},
		{
			name: "a read on the first replica that answers", servers: []string{"dead", "follower"}, args: []string{"get", "nominations"},
			stdout: "NAMESPACE  NAME  NODE  PRIORITY  REVISION  RESTORED\ndefault    high  n2    1000      12        no\ndefault    old   n1    -         -         yes\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			leader := &fakeBerthd{held: map[string]bool{"Node n1": true}}
			leaderAddr := leader.start(t)
			follower := &fakeBerthd{follower: true, leader: leaderAddr}
			addrs := map[string]string{"dead": deadAddr(t), "follower": follower.start(t), "leader": leaderAddr}
			var list []string
			for _, s := range tt.servers {
				list = append(list, addrs[s])
			}

			got := berthctl(t, nil, "", append([]string{"--server", strings.Join(list, ",")}, tt.args...)...)

			if diff := cmp.Diff(result{stdout: tt.stdout}, got, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("berthctl (-want +got):\n%s", diff)
			}
			if n := len(leader.syncReqs); n != tt.leaderSyncs {
				t.Errorf("leader received %d Sync requests, want %d", n, tt.leaderSyncs)
			}
			if diff := cmp.Diff(tt.followerCalls, follower.refused); diff != "" {
				t.Errorf("calls the follower refused (-want +got):\n%s", diff)
			}
		})
	}
}

// A write goes round the replicas listed, one of them down, until the
// election among the others ends.
func TestServerListWaitsForAnElection(t *testing.T) {
	file := filepath.Join(t.TempDir(), "app.yaml")
	writeFile(t, file, strings.Join(strings.Split(applyManifest, "---\n")[:3], "---\n"))
	a := &fakeBerthd{follower: true, leadAfter: 3}
	b := &fakeBerthd{follower: true}
	server := strings.Join([]string{deadAddr(t), a.start(t), b.start(t)}, ",")

	got := berthctl(t, nil, "", "--server", server, "apply", "-f", file)

	if diff := cmp.Diff(result{stdout: "3 applied\n"}, got, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("berthctl apply (-want +got):\n%s", diff)
	}
	if len(a.refused) != 3 || len(a.syncReqs) != 1 {
		t.Errorf("the replica elected refused %d Sync streams and took %d requests, want 3 and 1", len(a.refused), len(a.syncReqs))
	}
}

// A write no replica takes fails with UNAVAILABLE's exit code and says why.
func TestServerListWithoutLeader(t *testing.T) {
	a := (&fakeBerthd{follower: true}).start(t)
	b := (&fakeBerthd{follower: true}).start(t)
	server := a + "," + b

	got := berthctl(t, nil, "", "--server", server, "--timeout", "1s", "delete", "node", "n1")

	want := result{code: exitUnavailable, stderr: "berthctl: no berthd replica at " + server + " is the leader (an election may be under way): try again\n"}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("berthctl delete (-want +got):\n%s", diff)
	}
}

// A watch whose replica breaks resumes on the next replica listed, from the
// revision after the last printed, with the log's id.
func TestWatchResumesOnAnotherReplica(t *testing.T) {
	stream := watchStream()
	for _, r := range stream {
		r.LogId = "log-1"
	}
	first := &fakeBerthd{watch: stream[:1], watchErr: status.Error(codes.Unavailable, "replica stopped")}
	second := &fakeBerthd{watch: stream[2:]}
	server := first.start(t) + "," + second.start(t)
	a := &app{newTimer: func(time.Duration) idleTimer { return &firesAfter{n: 2, c: make(chan time.Time, 1)} }}

	got := berthctl(t, a, "", "--server", server, "watch", "--idle-timeout", "1s", "--from-revision", "5")

	want := "5 bind default/web -> n1\n6 evict default/low from n2 for default/high: preempted\n" +
		"7 nominate default/high -> n2\n8 clear_nomination default/mid (was n2): a higher priority pod took the room\n" +
		"9 unschedulable default/big: 0/2 nodes are available: 2 Insufficient cpu.\n" +
		"10 bind default/train -> n1 [default/train-gpu-x: gpu.example.com/n1/gpu-0]\n" +
		"11 deallocate_claim default/train [default/train-gpu-x: gpu.example.com/n1/gpu-0]: the last pod using the claim is gone\n" +
		"12 evict default/api from n1 (eviction API): Eviction API\n" +
		"13 evict default/hog from n2 (node pressure): The node was low on resource: memory.\n" +
		"14 evict default/small from n1 (defragmented): Defragmented for pod default/big (planned on n1): moved off n1; Berth's scheduler re-places it on n2\n" +
		"15 evict team-a/small from n1 (Kueue preemption): Preempted by workload team-b/pod-big-1a2b3 (InCohortReclamation)\n" +
		"16 admit team-b/pod-big-1a2b3 to cq-b [main: cpu=default, memory=default]\n" +
		"17 evict_workload team-a/pod-small-9f8e7 from cq-a for team-b/pod-big-1a2b3 (InCohortReclamation): Preempted to accommodate a workload due to reclamation within the cohort\n"
	if diff := cmp.Diff(result{stdout: want}, got, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("berthctl watch (-want +got):\n%s", diff)
	}
	wantReq := &berthv1.WatchRequest{FromRevision: 7, LogId: "log-1"}
	if diff := cmp.Diff(wantReq, second.watchReq, protocmp.Transform()); diff != "" {
		t.Errorf("Watch request to the second replica (-want +got):\n%s", diff)
	}
}

// $BERTH_SERVER takes the list as --server does.
func TestServerListFromEnvironment(t *testing.T) {
	leader := &fakeBerthd{}
	leaderAddr := leader.start(t)
	follower := &fakeBerthd{follower: true, leader: leaderAddr}
	list := deadAddr(t) + "," + follower.start(t)
	file := filepath.Join(t.TempDir(), "app.yaml")
	writeFile(t, file, strings.Join(strings.Split(applyManifest, "---\n")[:3], "---\n"))
	a := &app{}
	var out strings.Builder
	a.streams = streams{in: strings.NewReader(""), out: &out, err: &out}

	code := a.run(t.Context(), []string{"apply", "-f", file}, func(k string) string {
		if k == serverEnv {
			return list
		}
		return ""
	})

	if code != exitOK || out.String() != "3 applied\n" || len(leader.syncReqs) != 1 {
		t.Errorf("exit %d output %q, leader got %d Sync requests; want 0, 3 applied, 1", code, out.String(), len(leader.syncReqs))
	}
}
