package auth

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Scope is what a token allows.
type Scope int

const (
	// ReadOnly allows watching decisions, the admin service and reflection.
	ReadOnly Scope = iota + 1
	// ReadWrite allows everything.
	ReadWrite
)

func (s Scope) String() string {
	switch s {
	case ReadOnly:
		return "read-only"
	case ReadWrite:
		return "read-write"
	}
	return fmt.Sprintf("Scope(%d)", int(s))
}

// ErrNoTokens means a token file holds no token.
var ErrNoTokens = errors.New("auth: no token in the token file")

// Tokens is a set of bearer tokens with their scopes.
type Tokens struct {
	byHash map[[sha256.Size]byte]Scope
}

// LoadTokens reads a token file.
func LoadTokens(path string) (*Tokens, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	defer f.Close()
	t, err := ParseTokens(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// ParseTokens reads tokens in the token file format.
func ParseTokens(r io.Reader) (*Tokens, error) {
	t := &Tokens{byHash: make(map[[sha256.Size]byte]Scope)}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		scope := ReadWrite
		switch {
		case len(fields) > 2:
			return nil, fmt.Errorf("auth: line %d: want a token and an optional scope", n)
		case len(fields) == 2 && fields[1] == "read-only":
			scope = ReadOnly
		case len(fields) == 2 && fields[1] != "read-write":
			return nil, fmt.Errorf("auth: line %d: scope %q: want read-only or read-write", n, fields[1])
		}
		t.byHash[sha256.Sum256([]byte(fields[0]))] = scope
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	if len(t.byHash) == 0 {
		return nil, ErrNoTokens
	}
	return t, nil
}

// Scope returns the scope of token, 0 when it is not one of t. The web
// dashboard checks its bearer tokens and ?token= logins with it.
func (t *Tokens) Scope(token string) Scope { return t.scope(token) }

// scope returns the scope of token, 0 when it is not one of t.
func (t *Tokens) scope(token string) Scope {
	h := sha256.Sum256([]byte(token))
	var found Scope
	// Compare against every token in constant time.
	for k, s := range t.byHash {
		if subtle.ConstantTimeCompare(k[:], h[:]) == 1 {
			found = s
		}
	}
	return found
}

// Method prefixes with their own rules.
const (
	healthPrefix = "/grpc.health.v1.Health/"
	statePrefix  = "/berth.v1.StateService/"
)

// needed is the scope fullMethod needs; 0 when it is open.
func needed(fullMethod string) Scope {
	switch {
	case strings.HasPrefix(fullMethod, healthPrefix):
		return 0
	case strings.HasPrefix(fullMethod, statePrefix):
		return ReadWrite
	}
	return ReadOnly
}

// authorize checks the bearer token of ctx's metadata for fullMethod.
func (t *Tokens) authorize(ctx context.Context, fullMethod string) error {
	want := needed(fullMethod)
	if want == 0 {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return status.Error(codes.Unauthenticated, "missing bearer token: send metadata \"authorization: Bearer <token>\"")
	}
	token, ok := strings.CutPrefix(vals[0], "Bearer ")
	if !ok {
		return status.Error(codes.Unauthenticated, "malformed authorization: want \"Bearer <token>\"")
	}
	got := t.scope(strings.TrimSpace(token))
	switch {
	case got == 0:
		return status.Error(codes.Unauthenticated, "invalid bearer token")
	case got < want:
		return status.Errorf(codes.PermissionDenied, "%s needs a %s token", fullMethod, want)
	}
	return nil
}

// UnaryInterceptor checks the token of unary calls.
func (t *Tokens) UnaryInterceptor() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if err := t.authorize(ctx, info.FullMethod); err != nil {
			return nil, err
		}
		return handler(ctx, req)
	}
}

// StreamInterceptor checks the token of streaming calls.
func (t *Tokens) StreamInterceptor() grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		if err := t.authorize(ss.Context(), info.FullMethod); err != nil {
			return err
		}
		return handler(srv, ss)
	}
}

// ServerOptions are the grpc.ServerOptions installing both interceptors.
func (t *Tokens) ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(t.UnaryInterceptor()),
		grpc.ChainStreamInterceptor(t.StreamInterceptor()),
	}
}
