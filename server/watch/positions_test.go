package watch

import (
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/store/bboltstore"
)

// WatchLag is the slowest open watch's distance from the log's end: a
// watch stuck in its send after its first response lags by every
// decision made since, more than one keeping up, and watches that ended
// count no more.
func TestWatchLag(t *testing.T) {
	e := open(t, bboltstore.Options{}, Options{})
	if got := e.feed.WatchLag(); got != 0 {
		t.Fatalf("no watch: lag %d, want 0", got)
	}
	sent := make(chan struct{})
	stuck := make(chan struct{})
	first := true
	cancel, done := watch(t, e.feed, 1, Filter{}, func(*berthv1.WatchResponse) error {
		if first { // the first response, at revision 1
			first = false
			close(sent)
			return nil
		}
		<-stuck
		return t.Context().Err()
	})
	<-sent
	live := newCollector()
	stopLive, liveDone := watch(t, e.feed, 1, Filter{}, live.send)
	e.bindN(t, 0, 50)
	live.waitNext(t, 51)
	if got := e.feed.WatchLag(); got != 50 {
		t.Errorf("a watch stuck at revision 1 of 50: lag %d, want 50", got)
	}
	cancel()
	close(stuck)
	<-done
	stopLive()
	<-liveDone
	if got := e.feed.WatchLag(); got != 0 {
		t.Errorf("both watches ended: lag %d, want 0", got)
	}
}
