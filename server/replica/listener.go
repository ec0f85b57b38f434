package replica

import (
	"net"
	"sync"
)

// shared hands one listener's connections to a succession of servers, one
// per role (a follower's, then a leader's...): each gets a view whose
// Close, which a stopping server calls, leaves the listener open for the
// next. One goroutine accepts, until Close.
type shared struct {
	lis   net.Listener
	conns chan net.Conn
	done  chan struct{} // closed when accepting failed or Close ran
	err   error         // why accepting stopped; read after done
	once  sync.Once
}

func share(lis net.Listener) *shared {
	s := &shared{lis: lis, conns: make(chan net.Conn), done: make(chan struct{})}
	go s.accept()
	return s
}

func (s *shared) accept() {
	for {
		c, err := s.lis.Accept()
		if err != nil {
			s.err = err
			s.stop()
			return
		}
		select {
		case s.conns <- c:
		case <-s.done:
			c.Close()
			return
		}
	}
}

func (s *shared) stop() { s.once.Do(func() { close(s.done) }) }

// Close closes the listener itself.
func (s *shared) Close() error {
	s.stop()
	return s.lis.Close()
}

// view is a listener for one server.
func (s *shared) view() net.Listener {
	return &view{s: s, closed: make(chan struct{})}
}

type view struct {
	s      *shared
	closed chan struct{}
	once   sync.Once
}

func (v *view) Accept() (net.Conn, error) {
	select {
	case c := <-v.s.conns:
		return c, nil
	case <-v.closed:
		return nil, net.ErrClosed
	case <-v.s.done:
		if v.s.err != nil {
			return nil, v.s.err
		}
		return nil, net.ErrClosed
	}
}

func (v *view) Close() error {
	v.once.Do(func() { close(v.closed) })
	return nil
}

func (v *view) Addr() net.Addr { return v.s.lis.Addr() }
