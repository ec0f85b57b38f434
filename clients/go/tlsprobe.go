package berth

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"time"
)

// CertificateRefusedError is berthd refusing the TLS client certificate (or
// its absence) of a mutual-TLS connection. gRPC reports that only as an
// UNAVAILABLE connection failure; CheckClientCertificate tells it apart.
type CertificateRefusedError struct {
	// Target is the address dialled.
	Target string
	// Missing is true when no client certificate was sent.
	Missing bool
	// Required is true when berthd said a certificate is required (TLS
	// 1.3's certificate_required alert) rather than bad.
	Required bool
	// Alert is the TLS alert as Go's crypto/tls words it.
	Alert string
}

func (e *CertificateRefusedError) Error() string {
	if e.Required {
		return fmt.Sprintf("berthd at %s requires a client certificate (mutual TLS)", e.Target)
	}
	if e.Missing {
		return fmt.Sprintf("berthd at %s refused the connection for want of a client certificate (%s)", e.Target, e.Alert)
	}
	return fmt.Sprintf("berthd at %s refused the client certificate: %s", e.Target, e.Alert)
}

// tlsProbeTimeout bounds CheckClientCertificate's handshake and its wait for
// berthd's verdict.
const tlsProbeTimeout = 2 * time.Second

// refusalAlerts are the TLS alerts (as crypto/tls words them, after the
// RFC's names) with which a server refuses a client certificate.
var refusalAlerts = []string{
	"remote error: tls: certificate required",
	"remote error: tls: bad certificate",
	"remote error: tls: unknown certificate authority",
	"remote error: tls: expired certificate",
	"remote error: tls: certificate revoked",
	"remote error: tls: unsupported certificate",
	"remote error: tls: certificate unknown",
}

// CheckClientCertificate makes a TLS handshake with berthd as the
// connection does and waits for berthd's verdict on the client certificate:
// with TLS 1.3 a server refuses it after the client considers the handshake
// done, so a call only sees a connection that broke (UNAVAILABLE). Call it
// after such a failure: it returns a *CertificateRefusedError when berthd
// refuses the certificate, nil when it does not, when the connection is
// plaintext, made by New, or berthd cannot be reached. crypto/tls has no
// error type for a remote alert, so the alert is read from the error text.
func (c *Client) CheckClientCertificate(ctx context.Context) error {
	if c.tls == nil {
		return nil
	}
	target := c.Target()
	network, addr, err := ParseTarget(target)
	if err != nil {
		return nil
	}
	cfg := c.tls.Clone()
	cfg.NextProtos = []string{"h2"}
	if cfg.ServerName == "" {
		cfg.ServerName = "localhost" // gRPC's authority for unix sockets
		if network == "tcp" {
			cfg.ServerName, _, _ = net.SplitHostPort(addr)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, tlsProbeTimeout)
	defer cancel()
	conn, err := (&tls.Dialer{Config: cfg}).DialContext(ctx, network, addr)
	if err == nil {
		deadline, _ := ctx.Deadline()
		_ = conn.SetReadDeadline(deadline)
		_, err = conn.Read(make([]byte, 1))
		_ = conn.Close()
	}
	if err == nil {
		return nil
	}
	msg := err.Error()
	for i, alert := range refusalAlerts {
		if strings.Contains(msg, alert) {
			return &CertificateRefusedError{Target: target, Missing: len(cfg.Certificates) == 0 && cfg.GetClientCertificate == nil, Required: i == 0, Alert: msg}
		}
	}
	return nil
}
