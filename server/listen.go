package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

const unixScheme = "unix://"

// AddressError reports a listen address Berth cannot parse.
type AddressError struct {
	Address string
	Reason  string
}

func (e *AddressError) Error() string {
	return fmt.Sprintf("listen address %q: %s", e.Address, e.Reason)
}

// ParseAddress splits a listen address into a network and an address for
// net.Listen. It accepts "host:port" (TCP; the host may be empty for every
// interface, the port 0 for any free port) and "unix:///absolute/path" (a
// Unix socket).
func ParseAddress(address string) (network, addr string, err error) {
	if path, ok := strings.CutPrefix(address, unixScheme); ok {
		if !filepath.IsAbs(path) {
			return "", "", &AddressError{Address: address, Reason: "a unix socket needs an absolute path: unix:///path/to/socket"}
		}
		return "unix", path, nil
	}
	if strings.Contains(address, "://") {
		return "", "", &AddressError{Address: address, Reason: "want host:port or unix:///path"}
	}
	_, port, err := net.SplitHostPort(address)
	if err != nil {
		return "", "", &AddressError{Address: address, Reason: "want host:port or unix:///path"}
	}
	if port == "" {
		return "", "", &AddressError{Address: address, Reason: "missing port"}
	}
	return "tcp", address, nil
}

// Listen opens a listener on a listen address (see ParseAddress). A Unix
// socket left behind by a process that died is replaced; one a live process
// listens on is not.
func Listen(ctx context.Context, address string) (net.Listener, error) {
	network, addr, err := ParseAddress(address)
	if err != nil {
		return nil, err
	}
	if network == "unix" {
		if err := removeStaleSocket(ctx, addr); err != nil {
			return nil, fmt.Errorf("listen on %s: %w", address, err)
		}
	}
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, network, addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", address, err)
	}
	return l, nil
}

// removeStaleSocket removes the socket file at path when nothing accepts
// connections on it. It leaves any other file alone, so that Listen fails on
// it with a clear error.
func removeStaleSocket(ctx context.Context, path string) error {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && info.Mode()&fs.ModeSocket == 0) {
		return nil
	}
	if err != nil {
		return err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err == nil {
		_ = conn.Close()
		return nil // in use: Listen reports "address already in use"
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove stale socket: %w", err)
	}
	return nil
}
