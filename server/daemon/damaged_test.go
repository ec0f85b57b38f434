package daemon

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// TestDamagedRecordIsNotServed flips the node name of a stored Bind record,
// as the adversarial run did (Watch served it as history): after a restart
// Watch fails with DATA_LOSS naming the record's revision instead. A
// restart that must look the record up (an outstanding bind) fails to open
// with the same error.
func TestDamagedRecordIsNotServed(t *testing.T) {
	dir := t.TempDir()
	e := start(t, Config{DataDir: dir})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("node-a", 4000), podObj(podWire("p", 1000)))
	ds := w.waitFor(t, "the bind", func(ds []*berthv1.Decision) bool { return binds(ds)["p"] == "node-a" })
	rev := ds[len(ds)-1].GetRevision()
	// Confirmed, so that the restart has no outstanding bind to look up:
	// its search of the log would stop at the damage (see the report).
	e.apply(t, podObj(podWire("p", 1000, withNode("node-a"))))
	e.shutdown(t)

	db, err := bolt.Open(filepath.Join(dir, "berth.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		log := tx.Bucket([]byte("log"))
		var key, value []byte
		_ = log.ForEach(func(k, v []byte) error {
			if bytes.Contains(v, []byte("node-a")) {
				key, value = bytes.Clone(k), bytes.ReplaceAll(v, []byte("node-a"), []byte("node-b"))
			}
			return nil
		})
		if key == nil {
			t.Fatal("no stored record names node-a")
		}
		return log.Put(key, value)
	})
	if err := errors.Join(err, db.Close()); err != nil {
		t.Fatal(err)
	}
	e = start(t, Config{DataDir: dir})
	stream, err := e.watch.Watch(t.Context(), &berthv1.WatchRequest{FromRevision: 1}, grpc.WaitForReady(true))
	if err != nil {
		t.Fatal(err)
	}
	for {
		resp, err := stream.Recv()
		if err != nil {
			if status.Code(err) != codes.DataLoss || !strings.Contains(err.Error(), fmt.Sprintf("record at revision %d is damaged", rev)) {
				t.Fatalf("Watch over a damaged record = %v, want DATA_LOSS naming its revision", err)
			}
			return
		}
		for _, d := range resp.GetDecisions() {
			if d.GetBind() != nil {
				t.Fatalf("Watch served the damaged Bind: %v", d)
			}
		}
	}
}
