package cache

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/berthsched/berth/core/framework"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// TestJournalNamesChangedNodes: ChangedSince lists the nodes each update
// added, changed or removed, and refuses versions it no longer reaches.
func TestJournalNamesChangedNodes(t *testing.T) {
	c := New()
	c.AddNode(zoned("n1", "a"))
	c.AddNode(zoned("n2", "a"))
	s := NewEmptySnapshot()
	if err := c.UpdateSnapshot(s); err != nil {
		t.Fatal(err)
	}
	start := s.JournalVersion()
	if got, ok := s.ChangedSince(start); !ok || len(got) != 0 {
		t.Fatalf("ChangedSince(now) = %v, %v; want nothing, true", got, ok)
	}
	if _, ok := s.ChangedSince(0); ok {
		t.Error("ChangedSince(0), before the snapshot was built: want false")
	}

	steps := []struct {
		name   string
		change func(c *Cache)
		want   []string
	}{
		{"nothing", func(*Cache) {}, nil},
		{"pod added", func(c *Cache) { _ = c.AddPod(bound(mt.MakePod("p").Obj(), "n2")) }, []string{"n2"}},
		{"node added", func(c *Cache) { c.AddNode(zoned("n3", "b")) }, []string{"n3"}},
		{"node removed", func(c *Cache) { _ = c.RemoveNode("n1") }, []string{"n1"}},
	}
	var all []string
	for _, st := range steps {
		before := s.JournalVersion()
		st.change(c)
		if err := c.UpdateSnapshot(s); err != nil {
			t.Fatal(err)
		}
		got, ok := s.ChangedSince(before)
		if !ok {
			t.Fatalf("%s: ChangedSince(%d) not ok", st.name, before)
		}
		if diff := cmp.Diff(st.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: changed (-want +got):\n%s", st.name, diff)
		}
		all = append(all, st.want...)
	}
	got, _ := s.ChangedSince(start)
	if diff := cmp.Diff(all, got); diff != "" {
		t.Errorf("since the start (-want +got):\n%s", diff)
	}
	var _ framework.NodeJournal = s
}

// TestJournalDropsOldHalf: past its limit the journal forgets its older
// entries; versions before them are refused, later ones still served.
func TestJournalDropsOldHalf(t *testing.T) {
	var j journal
	j.restart()
	first := j.version
	for i := range 2000 {
		j.record(string(rune('a' + i%26)))
		j.commit(1) // limit 4*1+1024 entries
	}
	if len(j.entries) > 4+1024 {
		t.Fatalf("%d entries kept, want at most %d", len(j.entries), 4+1024)
	}
	s := &Snapshot{journal: j}
	if _, ok := s.ChangedSince(first); ok {
		t.Error("ChangedSince(first version): want false once dropped")
	}
	got, ok := s.ChangedSince(j.version - 3)
	if want := []string{string(rune('a' + 1997%26)), string(rune('a' + 1998%26)), string(rune('a' + 1999%26))}; !ok || !cmp.Equal(got, want) {
		t.Errorf("ChangedSince(last-3) = %v, %v; want %v, true", got, ok, want)
	}
}
