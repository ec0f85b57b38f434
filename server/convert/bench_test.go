package convert_test

import (
	"testing"

	"github.com/berthsched/berth/server/convert"
)

// BenchmarkPodFromProto measures validating and converting a fully
// populated pod, the ingest path of every pod upsert.
func BenchmarkPodFromProto(b *testing.B) {
	p := fullPod()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := convert.PodFromProto(p); err != nil {
			b.Fatal(err)
		}
	}
}
