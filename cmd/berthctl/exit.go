package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/berthsched/berth/clients/go"
)

// Exit codes (see doc.go). They are part of berthctl's interface.
const (
	exitOK           = 0
	exitFailed       = 1
	exitUsage        = 2
	exitUnavailable  = 3
	exitNotFound     = 4
	exitUnauthorized = 5
	exitBudget       = 6
)

// exitError is an error with the exit code it ends berthctl with.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageErrorf reports a bad command line (exit 2).
func usageErrorf(format string, a ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, a...)}
}

// failedf reports an operation that did not succeed (exit 1).
func failedf(format string, a ...any) error {
	return &exitError{code: exitFailed, err: fmt.Errorf(format, a...)}
}

// exitCode is the code err ends berthctl with.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	if e := (*exitError)(nil); errors.As(err, &e) {
		return e.code
	}
	return exitFailed
}

// rpcError turns the error of a call to berthd into words for people and
// an exit code. what names the object the call was about ("pod
// default/web"), for NOT_FOUND; server is the address dialled.
func rpcError(ctx context.Context, err error, server, what string) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return &exitError{code: exitFailed, err: err}
	}
	msg := st.Message()
	switch st.Code() {
	case codes.NotFound:
		if what != "" {
			return &exitError{code: exitNotFound, err: fmt.Errorf("%s not found", what)}
		}
		return &exitError{code: exitNotFound, err: fmt.Errorf("not found: %s", msg)}
	case codes.Unavailable:
		if leader, ok := berth.NotLeader(err); ok {
			return &exitError{code: exitUnavailable, err: notLeaderError(server, leader)}
		}
		if speaksHTTP1(msg) {
			return &exitError{code: exitUnavailable, err: fmt.Errorf("%s answered in HTTP/1.1, not gRPC: %s", server, metricsPortHint)}
		}
		return &exitError{code: exitUnavailable, err: fmt.Errorf("cannot reach berthd at %s: %s%s", server, msg, transportHint(msg))}
	case codes.DeadlineExceeded:
		return &exitError{code: exitUnavailable, err: fmt.Errorf("berthd at %s did not answer in time (--timeout): %s", server, msg)}
	case codes.Canceled:
		if ctx.Err() != nil {
			return &exitError{code: exitFailed, err: errors.New("interrupted")}
		}
		return &exitError{code: exitUnavailable, err: fmt.Errorf("the call to berthd at %s was cancelled: %s", server, msg)}
	case codes.Unauthenticated:
		return &exitError{code: exitUnauthorized, err: fmt.Errorf("berthd at %s refused the credentials (see --token, --token-file): %s", server, msg)}
	case codes.PermissionDenied:
		return &exitError{code: exitUnauthorized, err: fmt.Errorf("permission denied by berthd at %s: %s", server, msg)}
	case codes.Unimplemented:
		return &exitError{code: exitFailed, err: fmt.Errorf("berthd at %s does not implement this call yet: %s", server, msg)}
	case codes.ResourceExhausted:
		if errorReason(st) == "SIMULATION_LIMIT" {
			// berthd's message names the limit and the flag raising it.
			return &exitError{code: exitFailed, err: fmt.Errorf("berthd at %s refused the simulation: %s", server, msg)}
		}
		return &exitError{code: exitFailed, err: fmt.Errorf("berthd at %s refused a request as too large (try a smaller --batch-size): %s", server, msg)}
	case codes.InvalidArgument, codes.FailedPrecondition, codes.OutOfRange:
		return &exitError{code: exitFailed, err: fmt.Errorf("berthd refused the request: %s", msg)}
	}
	return &exitError{code: exitFailed, err: fmt.Errorf("berthd at %s: %s: %s", server, st.Code(), msg)}
}

// metricsPortHint is what berthctl says when --server names an HTTP/1.1
// listener, most likely berthd's own --metrics-listen.
const metricsPortHint = "this looks like berthd's HTTP metrics port (--metrics-listen); " +
	"berthctl needs the gRPC address (--server HOST:PORT of berthd's --listen, 127.0.0.1:7070 by default)"

// speaksHTTP1 tells from a transport failure's text that the server
// answered gRPC's HTTP/2 preface with an HTTP/1.1 response: the http2
// framer reads its status line as a frame header too large to be one.
func speaksHTTP1(msg string) bool {
	return strings.Contains(msg, "frame header looked like an HTTP/1.1 header") ||
		strings.Contains(msg, "http2: frame too large")
}

// transportHint suggests a flag for a connection that failed on TLS. gRPC
// reports transport failures only as text, so the text is what there is.
func transportHint(msg string) string {
	switch {
	case strings.Contains(msg, "first record does not look like a TLS handshake"):
		return " (berthd does not serve TLS there: drop --tls and the --tls-* flags)"
	case strings.Contains(msg, "x509:"):
		return " (berthd's certificate was not accepted: see --tls-ca and --tls-server-name)"
	case strings.Contains(msg, "error reading server preface"):
		return " (if berthd serves TLS, pass --tls)"
	}
	return ""
}

// notLeaderError words a write no replica of --server took because none was
// the leader (or the one named could not be reached).
func notLeaderError(server, leader string) error {
	if leader == "" {
		return fmt.Errorf("no berthd replica at %s is the leader (an election may be under way): try again", server)
	}
	return fmt.Errorf("berthd replicas at %s name %s as the leader, which did not take the call: try again", server, leader)
}

// errorReason is the reason of st's ErrorInfo detail, "" without one.
func errorReason(st *status.Status) string {
	for _, d := range st.Details() {
		if i, ok := d.(*errdetails.ErrorInfo); ok {
			return i.GetReason()
		}
	}
	return ""
}
