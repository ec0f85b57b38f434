package adminsvc

import (
	"context"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// Startup tells whether the server restarted and still waits for the
// orchestrator's first re-list of pods; the daemon knows.
type Startup interface {
	// AwaitingRelist: no re-list of pods has ended since a restart
	// (awaiting), and scheduling still waits for it (held).
	AwaitingRelist() (awaiting, held bool)
}

// Replica tells a replica's role in its etcd group, the leader's address
// and its term (server/replica).
type Replica interface {
	Role() (role berthv1.ReplicaRole, leader string, term uint64)
}

// ServerInfo says which build answers and whether it waits for the first
// re-list after a restart, so that tools can say why listings are empty.
func (s *Service) ServerInfo(context.Context, *berthv1.ServerInfoRequest) (*berthv1.ServerInfoResponse, error) {
	resp := &berthv1.ServerInfoResponse{Version: s.opts.Version}
	if s.opts.Startup != nil {
		resp.AwaitingRelist, resp.SchedulingHeld = s.opts.Startup.AwaitingRelist()
	}
	if s.opts.Replica != nil {
		resp.Role, resp.Leader, resp.Term = s.opts.Replica.Role()
	}
	return resp, nil
}
