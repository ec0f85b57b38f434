package server

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseAddress(t *testing.T) {
	tests := []struct {
		address     string
		wantNetwork string
		wantAddr    string
		wantErr     bool
	}{
		{address: "127.0.0.1:7070", wantNetwork: "tcp", wantAddr: "127.0.0.1:7070"},
		{address: ":7070", wantNetwork: "tcp", wantAddr: ":7070"},
		{address: "[::1]:0", wantNetwork: "tcp", wantAddr: "[::1]:0"},
		{address: "localhost:9090", wantNetwork: "tcp", wantAddr: "localhost:9090"},
		{address: "unix:///run/berth/berthd.sock", wantNetwork: "unix", wantAddr: "/run/berth/berthd.sock"},
		{address: "unix://berthd.sock", wantErr: true},
		{address: "tcp://127.0.0.1:7070", wantErr: true},
		{address: "127.0.0.1", wantErr: true},
		{address: "127.0.0.1:", wantErr: true},
		{address: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.address, func(t *testing.T) {
			network, addr, err := ParseAddress(tt.address)
			if tt.wantErr {
				var ae *AddressError
				if !errors.As(err, &ae) {
					t.Fatalf("err = %v, want an *AddressError", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if diff := cmp.Diff([]string{tt.wantNetwork, tt.wantAddr}, []string{network, addr}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestListenUnix(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, path string)
		wantErr bool
	}{
		{name: "fresh path", prepare: func(*testing.T, string) {}},
		{name: "stale socket is replaced", prepare: func(t *testing.T, path string) {
			l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
			if err != nil {
				t.Fatal(err)
			}
			l.SetUnlinkOnClose(false) // as if the process had died
			_ = l.Close()
		}},
		{name: "live socket is kept", wantErr: true, prepare: func(t *testing.T, path string) {
			l, err := net.Listen("unix", path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = l.Close() })
		}},
		{name: "regular file is kept", wantErr: true, prepare: func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.sock")
			tt.prepare(t, path)
			l, err := Listen(t.Context(), "unix://"+path)
			if tt.wantErr {
				if err == nil {
					_ = l.Close()
					t.Fatal("Listen succeeded, want an error")
				}
				if _, statErr := os.Lstat(path); statErr != nil {
					t.Errorf("the existing file was removed: %v", statErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Listen: %v", err)
			}
			defer l.Close()
			conn, err := net.Dial("unix", path)
			if err != nil {
				t.Fatalf("dial the new socket: %v", err)
			}
			_ = conn.Close()
		})
	}
}
