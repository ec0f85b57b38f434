// Package decisiontest holds what the tests of the decision log and of its
// readers share: comparing decisions whose times are the log's, not the
// test's.
package decisiontest

import (
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// StripTime returns copies of ds without their times.
func StripTime(ds []*berthv1.Decision) []*berthv1.Decision {
	out := make([]*berthv1.Decision, len(ds))
	for i, d := range ds {
		c := proto.CloneOf(d)
		c.Time = nil
		out[i] = c
	}
	return out
}

// Diff compares want with got, got's times ignored; "" when they agree.
func Diff(want, got []*berthv1.Decision) string {
	return cmp.Diff(want, StripTime(got), protocmp.Transform())
}
