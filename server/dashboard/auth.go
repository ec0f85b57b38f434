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
// a known bearer token or a live session. A login, the login page's form
// (a POST of token) or a ?token= address, is exchanged for a session and
// redirected to the same URL without the token.
func (d *Dashboard) guard(next http.Handler) http.Handler {
	tokens := d.opts.Tokens
	if tokens == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := r.Header.Get("Authorization"); h != "" {
			token, ok := strings.CutPrefix(h, "Bearer ")
			if !ok || tokens.Scope(strings.TrimSpace(token)) < auth.ReadOnly {
				d.unauthorized(w, r, "The Authorization header holds no valid bearer token.")
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodPost {
			// The login page's form: the token in the body, never in an
			// address. A form posted from another site is refused, so that
			// no page elsewhere can log a browser in with its own token.
			if crossSite(r) {
				d.message(w, http.StatusForbidden, "Forbidden", "A login must come from the dashboard's own page.")
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, maxLoginBytes)
			if err := r.ParseForm(); err != nil || !r.PostForm.Has(tokenParam) {
				d.unauthorized(w, r, "The login form sent no token.")
				return
			}
			d.login(w, r, tokens, r.PostFormValue(tokenParam), "The token given is not one of berthd's --token-file.")
			return
		}
		if q := r.URL.Query(); q.Has(tokenParam) {
			d.login(w, r, tokens, q.Get(tokenParam), "The token in the address is not one of berthd's --token-file.")
			return
		}
		if c, err := r.Cookie(cookieName); err == nil && d.sessions.valid(c.Value) {
			next.ServeHTTP(w, r)
			return
		}
		d.unauthorized(w, r, "berthd runs with --token-file: give a token of the file (read-only ones too) below, "+
			"open the dashboard once as /?token=<token>, or send \"Authorization: Bearer <token>\".")
	})
}

// crossSite reports whether a request came from another site's page: as
// the browser says in Sec-Fetch-Site, or an Origin naming another host.
// (Pages here send no referrer, so their own forms may carry Origin
// "null".)
func crossSite(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site", "same-site":
		return true
	}
	o := r.Header.Get("Origin")
	return o != "" && o != "null" && o != "http://"+r.Host && o != "https://"+r.Host
}

// maxLoginBytes bounds a login form's body: a token and little else.
const maxLoginBytes = 16 << 10

// login starts a session for a known token and redirects to the page
// asked for without the token; an unknown one is refused with refusal.
func (d *Dashboard) login(w http.ResponseWriter, r *http.Request, tokens Tokens, token, refusal string) {
	if tokens.Scope(strings.TrimSpace(token)) < auth.ReadOnly {
		d.unauthorized(w, r, refusal)
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: d.sessions.start(), Path: "/",
		MaxAge: int(sessionTTL / time.Second), HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil,
	})
	q := r.URL.Query()
	q.Del(tokenParam)
	u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
	if !strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") {
		u.Path = "/" // never a redirect to another host
	}
	http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
}

// loginView is the data of the login page: why the token is needed, and
// where its form posts (the page asked for).
type loginView struct {
	Text   string
	Action string
}

func (d *Dashboard) unauthorized(w http.ResponseWriter, r *http.Request, text string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="berthd"`)
	q := r.URL.Query()
	q.Del(tokenParam)
	action := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
	if !strings.HasPrefix(action.Path, "/") || strings.HasPrefix(action.Path, "//") {
		action = url.URL{Path: "/"}
	}
	d.render(w, nil, http.StatusUnauthorized, "login", page{Title: "Token needed", Data: loginView{Text: text, Action: action.RequestURI()}})
}
