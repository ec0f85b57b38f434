package bboltstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/berthsched/berth/store"
)

// BenchmarkCommit measures durable commits of one 200-byte record with 1, 16
// and 256 concurrent committers, with the default MaxDelay and without any
// (delay=off). ns/op is per commit; batches/tx is the mean group size;
// ctxsw/op the process's context switches (voluntary and not, all threads)
// per commit: with one committer, the fdatasync's own and each hand-off's.
func BenchmarkCommit(b *testing.B) {
	payload := make([]byte, 200)
	for _, delay := range []time.Duration{0, -1} {
		for _, committers := range []int{1, 16, 256} {
			name := fmt.Sprintf("committers=%d/delay=%v", committers, DefaultMaxDelay)
			if delay < 0 {
				name = fmt.Sprintf("committers=%d/delay=off", committers)
			}
			b.Run(name, func(b *testing.B) {
				s := open(b, b.TempDir(), Options{MaxDelay: delay})
				var next atomic.Int64
				var wg sync.WaitGroup
				sw := contextSwitches(b)
				b.ResetTimer()
				for range committers {
					wg.Go(func() {
						var batch store.Batch
						batch.Append(payload)
						for next.Add(1) <= int64(b.N) {
							if _, err := s.Commit(context.Background(), &batch); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				b.StopTimer()
				st := s.Stats()
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
				b.ReportMetric(float64(st.Batches)/float64(st.Transactions), "batches/tx")
				b.ReportMetric(float64(contextSwitches(b)-sw)/float64(b.N), "ctxsw/op")
			})
		}
	}
}

// contextSwitches sums the context switches of this process's threads.
func contextSwitches(b *testing.B) uint64 {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		b.Skip("no /proc: ", err)
	}
	var n uint64
	for _, t := range tasks {
		st, err := os.ReadFile(filepath.Join("/proc/self/task", t.Name(), "status"))
		if err != nil {
			continue // exited meanwhile
		}
		for line := range strings.Lines(string(st)) {
			k, v, _ := strings.Cut(line, ":")
			if k == "voluntary_ctxt_switches" || k == "nonvoluntary_ctxt_switches" {
				c, _ := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
				n += c
			}
		}
	}
	return n
}

// BenchmarkRead measures reading 1000 records of 200 bytes, from bbolt
// (no tail) and from the in-memory tail.
func BenchmarkRead(b *testing.B) {
	for _, mode := range []struct {
		name string
		tail int
	}{{"disk", -1}, {"tail", 0}} {
		b.Run(mode.name, func(b *testing.B) {
			s := open(b, b.TempDir(), Options{TailSize: mode.tail})
			for range 10 {
				var batch store.Batch
				for range 500 {
					batch.Append(make([]byte, 200))
				}
				commit(b, s, &batch)
			}
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				rs, err := s.Read(ctx, 3001, 1000)
				if err != nil || len(rs) != 1000 {
					b.Fatalf("Read = %d records, %v", len(rs), err)
				}
			}
			b.ReportMetric(float64(b.N)*1000/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkRecordChecksum measures what a checksum adds to a record of 200
// bytes: sealing it when committed and checking it when read from bbolt.
func BenchmarkRecordChecksum(b *testing.B) {
	v := make([]byte, timeSize+200+crcSize)
	k := putUint64(42)
	now := time.Now()
	b.Run("seal", func(b *testing.B) {
		for b.Loop() {
			sealRecordValue(v, 42, now)
		}
	})
	b.Run("check", func(b *testing.B) {
		sealRecordValue(v, 42, now)
		for b.Loop() {
			if _, err := decodeRecord(k, v, true, true); err != nil {
				b.Fatal(err)
			}
		}
	})
}
