// Package dashboard is berthd's read-only web dashboard, served on the
// metrics listener beside /metrics and /healthz (server.Config.Dashboard).
//
// Pages, all server-rendered with html/template from files embedded in the
// binary, with two small scripts and no network fetch beyond berthd:
//   - / the queue: pods active, in backoff, unschedulable and gated, their
//     counts over time (History, a ring of samples Sample takes every few
//     seconds; pods against time, UTC, the counts of a moment under the
//     pointer from /api/queue), and the pending pods;
//   - /pods every pod, bound ones included (AdminService.ListPods);
//     with ?pod= it opens that pod's page;
//   - /nodes the nodes: a heatmap, one canvas cell a node, grouped by
//     labels (?group=, zone and pool by default) and coloured by the share
//     of cpu, memory, pods or devices requested, or by state (NotReady,
//     under pressure, cordoned, tainted), its data read from /api/heatmap
//     10,000 nodes a page, all from one snapshot (nodeCache); and a table
//     of the same nodes with their status from the conditions (as berthctl
//     get nodes shows it), taints sent and derived, and cordons;
//   - /nodes/{name} one node: requests against allocatable, conditions,
//     taints, its pods, the pods nominated on it and the recent decisions
//     naming it (the last recentScanned of the log);
//   - /decisions the live decision stream: /decisions/stream is a
//     server-sent event stream fed by the decision log's Watch (server/watch), one event
//     per decision whose id is its revision, so a browser reconnecting with
//     Last-Event-ID resumes where it stopped (?from=REVISION starts there;
//     otherwise a stream starts with the last decisions), ?type=, ?profile=
//     and ?q= keeping some (decisionFilter);
//   - /pods/{namespace}/{name} explain as a table of nodes by plugins: the
//     plugin whose Filter rejected each node in the last failed attempt,
//     and the scores of a dry run (Simulate) now, with the message kube
//     would print for the pod and the numbers behind "Insufficient cpu"
//     (ExplainResponse.shortfalls); for a pod with PersistentVolumeClaims,
//     each claim with the volume it is bound to or, once the pod's Bind
//     decided, the volume chosen or the node to provision on
//     (scheduler.Explanation.Volumes), and the volume plugins' reasons per
//     node.
//
// Every list is paged (?page=, ?size= up to maxPageSize), sorted by any of
// its columns (?sort=column, -column descending) and filtered: pods by
// text (?q=), namespace, state, profile, least priority and node; nodes by
// name (?q=), label selector (?sel=, as kubectl -l takes it) and state.
// All of it is in the address, so that a list can be reloaded, bookmarked
// and shared as shown; /api/pods and /api/nodes answer the same pages as
// JSON, behind the same access rules as the pages. Live parts
// ([data-live]) refresh every few seconds (?refresh=, 0 never) from the
// same address with ?part=live, which answers them alone; the heatmap
// re-reads its data as often. A page's HTML stays small whatever the size
// of the fleet (TestBudget measures it at 5,000 nodes and 10,000 pods).
//
// Data comes in through interfaces declared here: Admin (the AdminService
// reads, and AllNodes, every node from one snapshot; *adminsvc.Service),
// Explainer (the live scheduler's explanation, which names the rejecting
// plugin of each node; scheduler.View) and Decisions (the decision log's
// watch feed, *watch.Feed).
// Nothing here changes the scheduler.
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
// Streams. The feed's Watch reads on the stream's own goroutine and keeps
// only its position, so a slow browser never holds up the log or other
// watchers: it falls behind, and a write that cannot complete within
// writeTimeout ends its stream; the browser reconnects and resumes from
// its last revision. Nothing is buffered per browser beyond the response
// writer's buffer, and the page keeps the newest maxRows rows.
package dashboard
