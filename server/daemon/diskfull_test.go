package daemon

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/store/bboltstore"
)

// fullDiskFS is the operating system's files, except that while full is
// set every write to the write-ahead file fails with ENOSPC.
type fullDiskFS struct {
	bboltstore.OSFS
	full atomic.Bool
}

func (fs *fullDiskFS) OpenFile(name string, flag int, perm os.FileMode) (bboltstore.File, error) {
	f, err := fs.OSFS.OpenFile(name, flag, perm)
	if err != nil || filepath.Base(name) != "berth.wal" {
		return f, err
	}
	return &fullDiskFile{File: f, fs: fs}, nil
}

type fullDiskFile struct {
	bboltstore.File
	fs *fullDiskFS
}

func (f *fullDiskFile) WriteAt(b []byte, off int64) (int, error) {
	if f.fs.full.Load() {
		return 0, &os.PathError{Op: "write", Path: "berth.wal", Err: syscall.ENOSPC}
	}
	return f.File.WriteAt(b, off)
}

// TestFullDisk fills the disk under a serving berthd, as the adversarial
// run did (binds failed with ENOSPC while health said SERVING and ERROR
// lines filled the log, until a restart): berthd reports NOT_SERVING and
// stops scheduling, still accepts state, loses no decision made before,
// and once space is back reports SERVING and schedules what waited,
// without a restart.
func TestFullDisk(t *testing.T) {
	fs := &fullDiskFS{}
	e := start(t, Config{DataDir: t.TempDir(), Bbolt: bboltstore.Options{FS: fs}})
	health := healthpb.NewHealthClient(e.conn)
	statuses := watchHealth(t, health)
	waitStatus(t, statuses, healthpb.HealthCheckResponse_SERVING)
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n1", 4000), podObj(podWire("before", 1000)))
	w.waitFor(t, "the bind made before the disk filled", func(ds []*berthv1.Decision) bool { return binds(ds)["before"] == "n1" })

	fs.full.Store(true)
	e.apply(t, podObj(podWire("during", 1000))) // its bind fails: the disk is full
	waitStatus(t, statuses, healthpb.HealthCheckResponse_NOT_SERVING)
	if !e.d.Scheduler().View().Held() {
		t.Error("scheduling goes on while the store cannot write")
	}
	e.apply(t, podObj(podWire("queued", 1000))) // state is still accepted

	fs.full.Store(false)
	waitStatus(t, statuses, healthpb.HealthCheckResponse_SERVING)
	ds := w.waitFor(t, "the binds that waited for space", func(ds []*berthv1.Decision) bool {
		b := binds(ds)
		return b["during"] == "n1" && b["queued"] == "n1"
	})
	if b := binds(ds); b["before"] != "n1" {
		t.Errorf("the bind made before the disk filled is gone: %v", b)
	}
	for i, d := range ds {
		if d.GetRevision() != uint64(i)+1 {
			t.Fatalf("decision %d has revision %d: the history has a hole or a repeat", i, d.GetRevision())
		}
	}
}

// watchHealth streams berthd's overall health status.
func watchHealth(t *testing.T, c healthpb.HealthClient) <-chan healthpb.HealthCheckResponse_ServingStatus {
	t.Helper()
	stream, err := c.Watch(t.Context(), &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan healthpb.HealthCheckResponse_ServingStatus, 16)
	go func() {
		defer close(out)
		for {
			resp, err := stream.Recv()
			if err != nil {
				return
			}
			out <- resp.GetStatus()
		}
	}()
	return out
}

// waitStatus waits until the health stream reports want (waitLimit bounds a
// hang).
func waitStatus(t *testing.T, statuses <-chan healthpb.HealthCheckResponse_ServingStatus, want healthpb.HealthCheckResponse_ServingStatus) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	for {
		select {
		case s, ok := <-statuses:
			if !ok {
				t.Fatalf("health stream ended before %v", want)
			}
			if s == want {
				return
			}
		case <-ctx.Done():
			t.Fatalf("health never reported %v", want)
		}
	}
}
