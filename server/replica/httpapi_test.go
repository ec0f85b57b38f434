package replica

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The HTTP API on a replica group: every replica serves it; the leader
// takes writes, a follower refuses them as over gRPC (503, UNAVAILABLE
// with NOT_LEADER naming the leader's gRPC address, and its HTTP address
// as leader_http) and serves reads and watches.
func TestHTTPAPIOnReplicas(t *testing.T) {
	g := newGroup(t, 2, 2*time.Second)
	lead := g.leader()
	var follower *node
	for _, nd := range g.nodes {
		if nd != lead {
			follower = nd
		}
	}
	body := `{"objects":[{"node":{"name":"n1","allocatable":{"cpu":1000}}}]}`
	post := func(nd *node, path, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), "POST", "http://"+nd.http+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("POST %s on %s: %v", path, nd.addr, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, got := post(lead, "/v1/state:apply", body); code != http.StatusOK || !strings.Contains(got, `"applied":1`) {
		t.Errorf("apply on the leader: %d %s", code, got)
	}
	// The follower learns who leads from its etcd watch, soon after the
	// leader knows; until then its NOT_LEADER names nobody.
	code, got := post(follower, "/v1/state:apply", body)
	for deadline := time.Now().Add(time.Minute); strings.Contains(got, `"leader":""`) && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		code, got = post(follower, "/v1/state:apply", body)
	}
	if code != http.StatusServiceUnavailable || !strings.Contains(got, `"reason":"NOT_LEADER"`) ||
		!strings.Contains(got, `"leader":"`+lead.addr+`"`) || !strings.Contains(got, `"leader_http":"`+lead.http+`"`) {
		t.Errorf("apply on a follower: %d %s, want 503 with NOT_LEADER naming %s and leader_http %s", code, got, lead.addr, lead.http)
	}
	// The leader's HTTP address is where the write goes.
	if code, got := post(lead, "/v1/state:apply", body); code != http.StatusOK {
		t.Errorf("apply on leader_http: %d %s", code, got)
	}
	if code, got := post(follower, "/v1/admin:serverInfo", `{}`); code != http.StatusOK {
		t.Errorf("serverInfo on a follower: %d %s", code, got)
	}
	// A watch from 0 answers its first line at once, with the log's id.
	req, err := http.NewRequestWithContext(t.Context(), "GET", "http://"+follower.http+"/v1/decisions:watch", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	if resp.StatusCode != http.StatusOK || !sc.Scan() || !strings.Contains(sc.Text(), `"logId"`) {
		t.Errorf("watch on a follower: %d %q (%v)", resp.StatusCode, sc.Text(), sc.Err())
	}
}
