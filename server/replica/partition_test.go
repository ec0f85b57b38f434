package replica

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/etcdstore"
	"github.com/berthsched/berth/store/storetest"
)

// proxy forwards TCP to etcd until cut: then it drops every connection and
// holds new ones open without forwarding, as a partition does.
type proxy struct {
	lis    net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	cut    bool
}

func newProxy(t *testing.T, target string) *proxy {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{lis: lis, target: target}
	go p.accept()
	t.Cleanup(func() { lis.Close(); p.partition() })
	return p
}

func (p *proxy) endpoint() string { return "http://" + p.lis.Addr().String() }

func (p *proxy) accept() {
	for {
		c, err := p.lis.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.conns = append(p.conns, c)
		cut := p.cut
		p.mu.Unlock()
		if cut {
			continue // held open, never answered
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, up)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(up, c) }()
		go func() { _, _ = io.Copy(c, up) }()
	}
}

// partition drops the forwarded connections and forwards no more.
func (p *proxy) partition() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestLeaderCutOffFromEtcd: a leader that loses etcd (a partition, not a
// crash: its process runs on) stops leading once its lease runs out, the
// other replica takes over, and a write under the old leader's fence is
// refused.
func TestLeaderCutOffFromEtcd(t *testing.T) {
	g := newGroup(t, 0, time.Second)
	px := newProxy(t, g.etcd.Endpoint()[len("http://"):])
	cut := g.startAt("", px.endpoint())
	g.nodes = append(g.nodes, cut)
	if lead := g.leader(); lead != cut {
		t.Fatalf("%s leads; want the replica behind the proxy, started first", lead.addr)
	}
	other := g.start("")
	g.nodes = append(g.nodes, other)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	fence := electionKey(ctx, t, other.cli)
	if err := apply(ctx, cut.conn, nodeObj("n1", 4000), podObj("p1", 1000, "")); err != nil {
		t.Fatalf("Apply on the leader: %v", err)
	}

	px.partition()
	for cut.rep.Leading() {
		select {
		case <-ctx.Done():
			t.Fatal("the partitioned leader still leads after a minute")
		case <-time.After(10 * time.Millisecond):
		}
	}
	if lead := g.leader(); lead != other {
		t.Fatalf("%s leads after the partition; want %s", lead.addr, other.addr)
	}
	st, err := etcdstore.Open(ctx, other.cli, etcdstore.Options{Prefix: "/ha/", Fence: fence, CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Commit(ctx, storetest.Batch("late")); !errors.Is(err, store.ErrFenced) {
		t.Errorf("a commit under the partitioned leader's fence = %v; want ErrFenced", err)
	}
}
