package dashboard

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/berthsched/berth/server/auth"
)

// Tokens tells the scope of a bearer token, 0 for an unknown one;
// *auth.Tokens satisfies it. Every scope may read the dashboard, as every
// scope may call the admin RPCs.
type Tokens interface {
	Scope(token string) auth.Scope
}

const (
	// cookieName names the session cookie.
	cookieName = "berth_session"
	// sessionTTL is how long a login lasts.
	sessionTTL = 12 * time.Hour
	// maxSessions bounds the sessions kept; a login beyond it drops the
	// one closest to expiry.
	maxSessions = 1024
	// tokenParam is the query parameter of a login.
	tokenParam = "token"
)

// sessions are the logged-in browsers: random ids with their expiry. They
// hold no token.
type sessions struct {
	now func() time.Time

	mu     sync.Mutex
	expiry map[string]time.Time
}

func newSessions(now func() time.Time) *sessions {
	return &sessions{now: now, expiry: map[string]time.Time{}}
}

// start makes a session and returns its id.
func (s *sessions) start() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	id := base64.RawURLEncoding.EncodeToString(b[:])
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, exp := range s.expiry {
		if !now.Before(exp) {
			delete(s.expiry, k)
		}
	}
	if len(s.expiry) >= maxSessions {
		oldest, first := "", time.Time{}
		for k, exp := range s.expiry {
			if oldest == "" || exp.Before(first) {
				oldest, first = k, exp
			}
		}
		delete(s.expiry, oldest)
	}
	s.expiry[id] = now.Add(sessionTTL)
	return id
}

// valid reports whether id is a live session.
func (s *sessions) valid(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.expiry[id]
	return ok && s.now().Before(exp)
}

// guard lets a request through when the dashboard is open, or it carries
// a known bearer token or a live session; a ?token= login is exchanged for
// a session and redirected to the same URL without the token.
func (d *Dashboard) guard(next http.Handler) http.Handler {
	tokens := d.opts.Tokens
	if tokens == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := r.Header.Get("Authorization"); h != "" {
			token, ok := strings.CutPrefix(h, "Bearer ")
			if !ok || tokens.Scope(strings.TrimSpace(token)) < auth.ReadOnly {
				d.unauthorized(w, "The Authorization header holds no valid bearer token.")
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if q := r.URL.Query(); q.Has(tokenParam) {
			if tokens.Scope(q.Get(tokenParam)) < auth.ReadOnly {
				d.unauthorized(w, "The token in the address is not one of berthd's --token-file.")
				return
			}
			http.SetCookie(w, &http.Cookie{
				Name: cookieName, Value: d.sessions.start(), Path: "/",
				MaxAge: int(sessionTTL / time.Second), HttpOnly: true, SameSite: http.SameSiteStrictMode,
				Secure: r.TLS != nil,
			})
			q.Del(tokenParam)
			u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
			if !strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") {
				u.Path = "/" // never a redirect to another host
			}
			http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
			return
		}
		if c, err := r.Cookie(cookieName); err == nil && d.sessions.valid(c.Value) {
			next.ServeHTTP(w, r)
			return
		}
		d.unauthorized(w, "berthd runs with --token-file: open the dashboard once as /?token=<token> "+
			"(any token of the file, read-only ones too), or send \"Authorization: Bearer <token>\".")
	})
}

func (d *Dashboard) unauthorized(w http.ResponseWriter, text string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="berthd"`)
	d.message(w, http.StatusUnauthorized, "Token needed", text)
}
