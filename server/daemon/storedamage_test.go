package daemon

import (
	"bytes"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	bolt "go.etcd.io/bbolt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// TestWatchServesRecordsBeforeDamage damages the Bind of the fifth of
// eight pods (issue 28 item 4: with revision 5000 damaged, Watch from 1
// stopped at 4608, the end of the last whole read): after a restart, Watch
// from 1 serves every revision before the damaged one, then DATA_LOSS
// naming it; Watch from after it serves the rest.
func TestWatchServesRecordsBeforeDamage(t *testing.T) {
	dir := t.TempDir()
	e := start(t, Config{DataDir: dir})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	var pods []*berthv1.Object
	for i := range 8 {
		pods = append(pods, podObj(podWire(fmt.Sprintf("pod-%02d", i), 100)))
	}
	e.apply(t, append([]*berthv1.Object{nodeObj("node-a", 4000)}, pods...)...)
	ds := w.waitFor(t, "eight binds", func(ds []*berthv1.Decision) bool { return len(binds(ds)) == 8 })
	last := ds[len(ds)-1].GetRevision()
	for i := range 8 { // confirmed: the restart looks no bind up
		e.apply(t, podObj(podWire(fmt.Sprintf("pod-%02d", i), 100, withNode("node-a"))))
	}
	e.shutdown(t)
	damaged := damageRecord(t, dir, []byte("pod-04"))

	e = start(t, Config{DataDir: dir})
	got, err := watchUntilError(t, e, 1)
	if status.Code(err) != codes.DataLoss || !strings.Contains(err.Error(), fmt.Sprintf("record at revision %d is damaged", damaged)) {
		t.Fatalf("Watch from 1 ended with %v; want DATA_LOSS naming revision %d", err, damaged)
	}
	if want := revisionRange(1, damaged-1); !equalRevisions(got, want) {
		t.Errorf("Watch from 1 served revisions %v before DATA_LOSS; want %v, every one before the damaged record", got, want)
	}
	stream, err := e.watch.Watch(t.Context(), &berthv1.WatchRequest{FromRevision: damaged + 1}, grpc.WaitForReady(true))
	if err != nil {
		t.Fatal(err)
	}
	var after []uint64
	for len(after) < int(last-damaged) {
		resp, err := stream.Recv()
		if err != nil {
			t.Fatalf("Watch from %d: %v after %v", damaged+1, err, after)
		}
		for _, d := range resp.GetDecisions() {
			after = append(after, d.GetRevision())
		}
	}
	if want := revisionRange(damaged+1, last); !equalRevisions(after, want) {
		t.Errorf("Watch from %d served %v; want %v", damaged+1, after, want)
	}
}

// TestDamagedKeyspaceValueDoesNotStopStart damages the stored message of
// an unschedulable pod (issue 28 item 5: berthd refused to start with
// "recover unschedulable pods: ... checksum"): berthd starts, logs a
// warning naming the keyspace and the key, and counts it in
// berth_store_damaged_records_total.
func TestDamagedKeyspaceValueDoesNotStopStart(t *testing.T) {
	dir := t.TempDir()
	e := start(t, Config{DataDir: dir})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("node-a", 1000), podObj(podWire("too-big", 8000)))
	w.waitFor(t, "the Unschedulable", func(ds []*berthv1.Decision) bool {
		return countType(ds, berthv1.DecisionType_DECISION_TYPE_UNSCHEDULABLE) == 1
	})
	e.shutdown(t)
	key := damageValue(t, dir, "space/unschedulable")

	logs := &syncBuffer{}
	reg := prometheus.NewRegistry()
	e = start(t, Config{DataDir: dir, Registry: reg, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if _, err := e.admin().ServerInfo(t.Context(), &berthv1.ServerInfoRequest{}, grpc.WaitForReady(true)); err != nil {
		t.Fatalf("ServerInfo after a start over a damaged keyspace value: %v", err)
	}
	for _, want := range []string{"damaged keyspace value skipped", "keyspace=unschedulable", "key=" + key} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
	const metric = `
# HELP berth_store_damaged_records_total Keyspace records (nominations, binds awaiting their outcome, unschedulable messages, ...) found damaged, failing their checksum, since the store opened, by keyspace. Each was skipped as absent and is rebuilt when next written; 'berthd verify --repair' drops them.
# TYPE berth_store_damaged_records_total counter
berth_store_damaged_records_total{keyspace="unschedulable"} 1
`
	if err := testutil.GatherAndCompare(reg, filterSeries(metric), "berth_store_damaged_records_total"); err != nil {
		t.Error(err)
	}
}

// filterSeries is m; GatherAndCompare checks the named family, whose
// other keyspaces are 0.
func filterSeries(m string) *strings.Reader {
	var b strings.Builder
	b.WriteString(m)
	for _, sp := range []string{"admissions", "assumed", "claims", "deadlines", "evictions", "meta-user", "nominations", "pressure"} {
		fmt.Fprintf(&b, "berth_store_damaged_records_total{keyspace=%q} 0\n", sp)
	}
	return strings.NewReader(b.String())
}

// damageRecord flips a byte of the one stored record containing marker
// and returns its revision.
func damageRecord(t *testing.T, dir string, marker []byte) uint64 {
	t.Helper()
	var rev uint64
	editBolt(t, dir, func(tx *bolt.Tx) error {
		log := tx.Bucket([]byte("log"))
		var key, value []byte
		_ = log.ForEach(func(k, v []byte) error {
			if bytes.Contains(v, marker) {
				key, value = bytes.Clone(k), bytes.Clone(v)
			}
			return nil
		})
		if key == nil {
			t.Fatalf("no stored record holds %q", marker)
		}
		i := bytes.Index(value, marker)
		value[i] ^= 0x01
		for _, b := range key {
			rev = rev<<8 | uint64(b)
		}
		return log.Put(key, value)
	})
	return rev
}

// damageValue flips the first byte of the first value in bucket and
// returns its key.
func damageValue(t *testing.T, dir, bucket string) string {
	t.Helper()
	var key string
	editBolt(t, dir, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucket))
		k, v := b.Cursor().First()
		if k == nil {
			t.Fatalf("bucket %s is empty", bucket)
		}
		key = string(k)
		v = bytes.Clone(v)
		v[0] ^= 0x01
		return b.Put(bytes.Clone(k), v)
	})
	return key
}

func editBolt(t *testing.T, dir string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dir, "berth.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(fn)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}

// watchUntilError watches from `from` and returns the revisions received
// before the stream failed, and its error.
func watchUntilError(t *testing.T, e *env, from uint64) ([]uint64, error) {
	t.Helper()
	stream, err := e.watch.Watch(t.Context(), &berthv1.WatchRequest{FromRevision: from}, grpc.WaitForReady(true))
	if err != nil {
		t.Fatal(err)
	}
	var got []uint64
	for {
		resp, err := stream.Recv()
		if err != nil {
			return got, err
		}
		for _, d := range resp.GetDecisions() {
			got = append(got, d.GetRevision())
		}
	}
}

func revisionRange(from, to uint64) []uint64 {
	var out []uint64
	for r := from; r <= to; r++ {
		out = append(out, r)
	}
	return out
}

func equalRevisions(a, b []uint64) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// syncBuffer is a bytes.Buffer safe for a logger's concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
