package adminsvc_test

import (
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/queue"
	"github.com/berthsched/berth/server/adminsvc"
	"github.com/berthsched/berth/store"
)

// A follower's listing: the store's nominations, each restored, paged and
// checked as the leader's; the request is checked before the store is
// read, and a store that cannot be read is UNAVAILABLE.
func TestListStoredNominations(t *testing.T) {
	stored := []queue.Nomination{
		{PodUID: "uid-y", PodKey: "default/y", NodeName: "n1"},
		{PodUID: "uid-x2", PodKey: "default/x", NodeName: "n2"},
		{PodUID: "uid-x1", PodKey: "default/x", NodeName: "n2"},
		{PodUID: "uid-a", PodKey: "batch/a", NodeName: "n1"},
	}
	restored := func(ns, name, uid, node string) *berthv1.Nomination {
		return &berthv1.Nomination{Pod: &berthv1.PodRef{Namespace: ns, Name: name, Uid: uid}, Node: node, Restored: true}
	}
	token := func(key string) string { return base64.RawURLEncoding.EncodeToString([]byte(key)) }
	tests := []struct {
		name     string
		req      *berthv1.ListNominationsRequest
		readErr  error
		want     *berthv1.ListNominationsResponse
		wantCode codes.Code
	}{
		{
			name: "all, by pod then uid",
			req:  &berthv1.ListNominationsRequest{},
			want: &berthv1.ListNominationsResponse{Nominations: []*berthv1.Nomination{
				restored("batch", "a", "uid-a", "n1"), restored("default", "x", "uid-x1", "n2"),
				restored("default", "x", "uid-x2", "n2"), restored("default", "y", "uid-y", "n1"),
			}},
		},
		{
			name: "a page",
			req:  &berthv1.ListNominationsRequest{PageSize: 1},
			want: &berthv1.ListNominationsResponse{Nominations: []*berthv1.Nomination{restored("batch", "a", "uid-a", "n1")},
				NextPageToken: token("batch/a")},
		},
		{
			name: "after a token, on one node",
			req:  &berthv1.ListNominationsRequest{PageToken: token("batch/a"), Node: "n1"},
			want: &berthv1.ListNominationsResponse{Nominations: []*berthv1.Nomination{restored("default", "y", "uid-y", "n1")}},
		},
		{name: "negative page size", req: &berthv1.ListNominationsRequest{PageSize: -1}, readErr: errUnread, wantCode: codes.InvalidArgument},
		{name: "malformed token", req: &berthv1.ListNominationsRequest{PageToken: "%%"}, readErr: errUnread, wantCode: codes.InvalidArgument},
		{name: "store closed", req: &berthv1.ListNominationsRequest{}, readErr: fmt.Errorf("read: %w", store.ErrClosed), wantCode: codes.Unavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read := func() ([]queue.Nomination, error) {
				if tt.readErr != nil {
					return nil, tt.readErr
				}
				return append([]queue.Nomination(nil), stored...), nil
			}
			got, err := adminsvc.ListStoredNominations(tt.req, read)
			if code := status.Code(err); code != tt.wantCode {
				t.Fatalf("ListStoredNominations(%v) = %v; want code %v", tt.req, err, tt.wantCode)
			}
			if diff := cmp.Diff(tt.want, got, protocmp.Transform()); diff != "" {
				t.Errorf("ListStoredNominations(%v) (-want +got):\n%s", tt.req, diff)
			}
		})
	}
}

// errUnread is what a read that must not happen returns: a request
// refused before the read never sees it.
var errUnread = fmt.Errorf("the store was read")
