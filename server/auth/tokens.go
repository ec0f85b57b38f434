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

	"google.golang.org/grpc/metadata"

	"github.com/berthsched/berth/server/errmap"
)

// Scope is what a token allows.
type Scope int

const (
	// ReadOnly allows watching decisions, the admin service, reflection and
	// the node-pressure and node-pods reads.
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
	statsPrefix  = "/berth.v1.StatsService/"
	// The eviction API changes what runs: it needs the state's scope.
	evictionPrefix = "/berth.v1.EvictionService/"
)

// Reads on the services that otherwise change state: a read-only token may
// call them (berthctl get nodes asks for node pressure, drain --dry-run lists
// a node's pods).
const (
	nodePressureMethod = statsPrefix + "GetNodePressure"
	listNodePodsMethod = evictionPrefix + "ListNodePods"
)

// needed is the scope fullMethod needs; 0 when it is open.
func needed(fullMethod string) Scope {
	switch {
	case strings.HasPrefix(fullMethod, healthPrefix):
		return 0
	case fullMethod == nodePressureMethod, fullMethod == listNodePodsMethod:
		return ReadOnly
	case strings.HasPrefix(fullMethod, statePrefix), strings.HasPrefix(fullMethod, statsPrefix),
		strings.HasPrefix(fullMethod, evictionPrefix):
		return ReadWrite
	}
	return ReadOnly
}

// Authorize checks the bearer token in md, the metadata of a call of
// fullMethod: nil when the call may proceed, else an UNAUTHENTICATED or
// PERMISSION_DENIED status. The scheme "Bearer" is matched in any case, as
// HTTP auth schemes are. Messages never include the token. A nil *Tokens
// (no --token-file) lets every call in.
func (t *Tokens) Authorize(_ context.Context, fullMethod string, md metadata.MD) error {
	want := needed(fullMethod)
	if want == 0 || t == nil {
		return nil
	}
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return errmap.Status(errmap.Refuse(errmap.ErrUnauthenticated, "missing bearer token: send metadata \"authorization: Bearer <token>\""))
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(vals[0]), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return errmap.Status(errmap.Refuse(errmap.ErrUnauthenticated, "malformed authorization: want \"Bearer <token>\""))
	}
	got := t.scope(strings.TrimSpace(token))
	switch {
	case got == 0:
		return errmap.Status(errmap.Refuse(errmap.ErrUnauthenticated, "invalid bearer token"))
	case got < want:
		return errmap.Status(errmap.Refuse(errmap.ErrPermissionDenied, "%s needs a %s token", fullMethod, want))
	}
	return nil
}
