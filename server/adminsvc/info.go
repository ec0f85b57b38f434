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

// ServerInfo says which build answers and whether it waits for the first
// re-list after a restart, so that tools can say why listings are empty.
func (s *Service) ServerInfo(context.Context, *berthv1.ServerInfoRequest) (*berthv1.ServerInfoResponse, error) {
	resp := &berthv1.ServerInfoResponse{Version: s.opts.Version}
	if s.opts.Startup != nil {
		resp.AwaitingRelist, resp.SchedulingHeld = s.opts.Startup.AwaitingRelist()
	}
	return resp, nil
}
