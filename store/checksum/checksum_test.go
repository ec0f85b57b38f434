package checksum

import (
	"errors"
	"testing"

	"github.com/berthsched/berth/store"
)

func TestValueMovedOrDamagedFails(t *testing.T) {
	sealed := SealValue(store.Assumed, []byte("pod-a"), []byte("node-1"))
	if v, err := OpenValue(store.Assumed, []byte("pod-a"), sealed); err != nil || string(v) != "node-1" {
		t.Fatalf("OpenValue = %q, %v; want node-1", v, err)
	}
	damaged := append([]byte(nil), sealed...)
	damaged[0] ^= 1
	for _, tc := range []struct {
		name  string
		space store.Space
		key   string
		v     []byte
	}{
		{"another key", store.Assumed, "pod-b", sealed},
		{"another keyspace", store.Nominations, "pod-a", sealed},
		{"a changed byte", store.Assumed, "pod-a", damaged},
		{"shorter than the trailer", store.Assumed, "pod-a", sealed[:3]},
	} {
		if _, err := OpenValue(tc.space, []byte(tc.key), tc.v); !errors.Is(err, store.ErrCorrupt) {
			t.Errorf("%s: OpenValue = %v; want ErrCorrupt", tc.name, err)
		}
	}
	if Record(1, []byte("body")) == Record(2, []byte("body")) {
		t.Error("a record's checksum does not depend on its revision")
	}
}
