// Package dashboard is berthd's read-only web dashboard, served on the
// metrics listener beside /metrics and /healthz (server.Config.Dashboard).
//
// Pages, all server-rendered with html/template from files embedded in the
// binary, with one small script and no network fetch beyond berthd:
//   - / the queue: pods active, in backoff, unschedulable and gated, their
//     counts over time (History, a ring of samples Sample takes every few
//     seconds; pods against time, UTC), and the pending pods;
//   - /pods every pod, bound ones included (AdminService.ListPods), with its
//     state, ?state= keeping one; with ?pod= it opens that pod's page;
//   - /nodes the nodes as a heatmap of requested over allocatable cpu,
//     memory and pods, with their status from the conditions (as berthctl
//     get nodes shows it), taints sent and derived, and cordons;
//   - /decisions the live decision stream: /decisions/stream is a
//     server-sent event stream fed by the decision log's Watch, one event
//     per decision whose id is its revision, so a browser reconnecting with
//     Last-Event-ID resumes where it stopped (?from=REVISION starts there;
//     otherwise a stream starts with the last decisions);
//   - /pods/{namespace}/{name} explain as a table of nodes by plugins: the
//     plugin whose Filter rejected each node in the last failed attempt,
//     and the scores of a dry run (Simulate) now, with the message kube
//     would print for the pod and the numbers behind "Insufficient cpu"
//     (ExplainResponse.shortfalls).
//
// The lists take ?q=TEXT, a filter kept in the address so that the page's
// refresh (which reloads the address) keeps it.
//
// Data comes in through interfaces declared here: Admin (the AdminService
// reads; *adminsvc.Service), Explainer (the live scheduler's explanation,
// which names the rejecting plugin of each node; scheduler.View) and
// Decisions (*decisionlog.Log). Nothing here changes the scheduler.
//
// Access follows the admin RPCs' rules (server/auth): without Tokens the
// dashboard is open; with them every request needs a token
// of any scope, as "Authorization: Bearer <token>", or a session cookie. A
// browser cannot set a header when it navigates, so /?token=<token> logs
// in once, as does the login page's token field (a POST, which keeps the
// token out of addresses): the token is checked, exchanged for a random session id in an
// HttpOnly, SameSite=Strict cookie, and the browser is redirected to the
// same page without the token in its address. Tokens are never logged or
// stored; sessions live in memory and end with berthd.
//
// Streams. The log's Watch reads on the stream's own goroutine and keeps
// only its position, so a slow browser never holds up the log or other
// watchers: it falls behind, and a write that cannot complete within
// writeTimeout ends its stream; the browser reconnects and resumes from
// its last revision. Nothing is buffered per browser beyond the response
// writer's buffer, and the page keeps the newest maxRows rows.
package dashboard
