package server

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"
)

// HTTP/2 frame types and settings read by the test (RFC 9113, section 6).
const (
	frameSettings        = 0x4
	frameWindowUpdate    = 0x8
	flagAck              = 0x1
	settingInitialWindow = 0x4
	defaultWindow        = 65535
)

// TestServerFixesFlowControlWindows reads what the gRPC server announces to
// a new connection: a fixed stream window of FlowControlWindow in its
// SETTINGS, and the connection's window raised to the same by a
// WINDOW_UPDATE. gRPC probes the bandwidth (a ping per burst of data, and
// window updates after it) only when neither is set.
func TestServerFixesFlowControlWindows(t *testing.T) {
	r := start(t, Config{})
	c, err := net.Dial("tcp", r.conn.Target())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(testTimeout)); err != nil {
		t.Fatal(err)
	}
	// The client preface, then empty SETTINGS.
	if _, err := io.WriteString(c, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00"); err != nil {
		t.Fatal(err)
	}
	var streamWindow, connWindow uint32
	for streamWindow == 0 || connWindow == 0 {
		hdr := make([]byte, 9)
		if _, err := io.ReadFull(c, hdr); err != nil {
			t.Fatalf("reading frames (stream window %d, connection window %d so far): %v", streamWindow, connWindow, err)
		}
		n := int(hdr[0])<<16 | int(hdr[1])<<8 | int(hdr[2])
		typ, flags, stream := hdr[3], hdr[4], binary.BigEndian.Uint32(hdr[5:])&0x7fffffff
		payload := make([]byte, n)
		if _, err := io.ReadFull(c, payload); err != nil {
			t.Fatal(err)
		}
		switch {
		case typ == frameSettings && flags&flagAck == 0:
			for i := 0; i+6 <= n; i += 6 {
				if binary.BigEndian.Uint16(payload[i:]) == settingInitialWindow {
					streamWindow = binary.BigEndian.Uint32(payload[i+2:])
				}
			}
		case typ == frameWindowUpdate && stream == 0:
			connWindow = defaultWindow + binary.BigEndian.Uint32(payload)&0x7fffffff
		}
	}
	if streamWindow != FlowControlWindow || connWindow != FlowControlWindow {
		t.Errorf("stream window %d, connection window %d; want both %d", streamWindow, connWindow, FlowControlWindow)
	}
}
