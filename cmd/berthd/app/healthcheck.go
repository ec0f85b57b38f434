package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/berthsched/berth/server"
)

// healthcheckTimeout bounds berthd --healthcheck.
const healthcheckTimeout = 3 * time.Second

// healthcheck asks the berthd serving /healthz on metricsListen whether it
// serves, for container health checks: berthd's image has no shell or
// curl. A host of every interface (0.0.0.0, [::], empty) is asked on
// loopback.
func healthcheck(ctx context.Context, metricsListen string, stdout io.Writer) error {
	if metricsListen == "" {
		return errors.New("--healthcheck asks /healthz on --metrics-listen, which is empty")
	}
	network, addr, err := server.ParseAddress(metricsListen)
	if err != nil {
		return fmt.Errorf("--metrics-listen: %w", err)
	}
	if network == "tcp" {
		addr = loopbackFor(addr)
	}
	ctx, cancel := context.WithTimeout(ctx, healthcheckTimeout)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		},
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://berthd/healthz", nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("--healthcheck: /healthz on %s: %w", metricsListen, err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("--healthcheck: /healthz on %s answered %s", metricsListen, resp.Status)
	}
	_, err = fmt.Fprintln(stdout, "ok")
	return err
}

// loopbackFor replaces a host:port's unspecified host by loopback.
func loopbackFor(hostPort string) string {
	host, port, err := net.SplitHostPort(hostPort)
	if err != nil {
		return hostPort
	}
	ip := net.ParseIP(host)
	switch {
	case host == "", ip != nil && ip.To4() != nil && ip.IsUnspecified():
		host = "127.0.0.1"
	case ip != nil && ip.IsUnspecified():
		host = "::1"
	}
	return net.JoinHostPort(host, port)
}
