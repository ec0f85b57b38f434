package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server"
	"github.com/berthsched/berth/server/auth"
	"github.com/berthsched/berth/server/daemon"
	"github.com/berthsched/berth/server/dashboard"
)

// chromiumPath is Debian's chromium, which CI installs (.ci/test).
const chromiumPath = "/usr/bin/chromium"

// stepLimit bounds one step of the browser test.
const stepLimit = 15 * time.Second

// browserLimit bounds the whole browser test: a hang, not a timing
// assertion.
const browserLimit = 60 * time.Second

// TestBrowser drives the dashboard of a real berthd in headless chromium:
// a login by ?token=, every page, the decision stream updating when a pod
// is applied, and the explain table naming the plugin that rejected an
// unschedulable pod, with no console error or uncaught exception on the
// way.
func TestBrowser(t *testing.T) {
	requireChromium(t)
	ctx, cancel := context.WithTimeout(t.Context(), browserLimit)
	defer cancel()
	base, state := startBerthd(t, ctx, 0)
	notReady := node("n4", 8000, false)
	notReady.GetNode().Conditions = []*berthv1.NodeCondition{{Type: berthv1.NodeConditionType_NODE_CONDITION_TYPE_READY, Status: berthv1.ConditionStatus_CONDITION_STATUS_FALSE}}
	apply(t, ctx, state,
		node("n1", 4000, false), node("n2", 8000, true), node("n3", 8000, false, &berthv1.Taint{
			Key: "gpu", Value: "true", Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_SCHEDULE}),
		notReady, pod("db-0", 2000, "n1"))

	b := newBrowser(t, ctx)
	// The login page answers 401, which chromium logs as a failed load.
	b.allow("the server responded with a status of 401 (Unauthorized) (" + base + "/nodes:")
	b.do("log in through the token field", chromedp.Navigate(base+"/nodes"), chromedp.WaitVisible(chromedp.ID("login-token")),
		chromedp.SendKeys(chromedp.ID("login-token"), "viewer"), chromedp.Submit(chromedp.ID("login-token")),
		chromedp.WaitVisible(chromedp.ID("heatmap")))
	if url := run(b, "location after the form", chromedp.Location()); strings.Contains(url, "token") || !strings.HasSuffix(url, "/nodes") {
		t.Errorf("after the login form the address is %s, want the nodes page without the token", url)
	}
	b.do("log in and see the queue", chromedp.Navigate(base+"/?token=viewer"), chromedp.WaitVisible(chromedp.ID("count-active")))
	if title := run(b, "title", chromedp.Title()); title != "Queue · Berth" {
		t.Errorf("title %q after logging in", title)
	}
	if url := run(b, "location", chromedp.Location()); strings.Contains(url, "token") {
		t.Errorf("the address still holds the token: %s", url)
	}

	b.do("nodes", chromedp.Navigate(base+"/nodes"), chromedp.WaitVisible(`#heat-canvas[data-cells="4"]`))
	heat := run(b, "nodes table", chromedp.Text(chromedp.ID("nodes")))
	for _, want := range []string{"n1", "n2", "n3", "gpu=true:NoSchedule", "SchedulingDisabled"} {
		if !strings.Contains(heat, want) {
			t.Errorf("nodes table lacks %q:\n%s", want, heat)
		}
	}
	// n4's Ready condition is False: shown so, with the taints Berth derived.
	n4 := run(b, "the not-ready node", chromedp.Text(chromedp.CSS(`#nodes tr.notready`)))
	for _, want := range []string{"n4", "NotReady", "node.kubernetes.io/not-ready:NoSchedule"} {
		if !strings.Contains(n4, want) {
			t.Errorf("n4's row lacks %q: %s", want, n4)
		}
	}
	// The heatmap: hovering the second cell names n2 (cordoned); the
	// arrow keys and Enter open the node under the focus.
	if tip := run(b, "hover the second cell", chromedp.Evaluate[string](hoverCellJS(1))); !strings.Contains(tip, "n2") || !strings.Contains(tip, "cordoned") {
		t.Errorf("the tip over the second cell says %q, want n2 cordoned", tip)
	}
	b.do("open n3 from the keyboard", chromedp.Focus(chromedp.ID("heat-canvas")), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight),
		chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(`//h1[text()="Node n3"]`))
	if taints := run(b, "n3's taints", chromedp.Text(chromedp.ID("node-taints"))); !strings.Contains(taints, "gpu=true:NoSchedule") {
		t.Errorf("n3's page shows the taints %q", taints)
	}
	// The heatmap re-reads its nodes (every second here): a node sent
	// after the page loaded is drawn.
	b.do("back to the heatmap", chromedp.Navigate(base+"/nodes?refresh=1"), chromedp.WaitVisible(`#heat-canvas[data-cells="4"]`))
	apply(t, ctx, state, node("n5", 4000, false))
	b.do("the heatmap refreshed", chromedp.WaitVisible(`#heat-canvas[data-cells="5"]`))
	box := run(b, "the first cell", chromedp.Evaluate[[]float64](`(() => { const r = document.getElementById("heat-canvas").getBoundingClientRect(); return [r.left + 4, r.top + 24]; })()`))
	b.do("click the first cell", chromedp.MouseClickXY(box[0], box[1]), chromedp.WaitVisible(`//h1[text()="Node n1"]`))
	if pods := run(b, "n1's pods", chromedp.Text(chromedp.ID("node-pods"))); !strings.Contains(pods, "default/db-0") {
		t.Errorf("n1's page lacks its pod db-0: %q", pods)
	}

	b.do("filter the pods by name, in the address", chromedp.Navigate(base+"/pods"), chromedp.WaitVisible(chromedp.ID("filter")),
		chromedp.SendKeys(chromedp.ID("filter"), "db"), chromedp.Submit(chromedp.ID("filter")),
		// db-0 is listed before the filter too: wait for the page the
		// server filtered, whose box holds "db" in its value attribute
		// (typing sets the property only).
		chromedp.WaitVisible(`//input[@id="filter" and @value="db"]`),
		chromedp.WaitVisible(`//table[@id="pods"]//a[text()="default/db-0"]`))
	if url := run(b, "the filter's address", chromedp.Location()); !strings.Contains(url, "q=db") {
		t.Errorf("the filter is not in the address: %s", url)
	}
	if pods := run(b, "the bound pods", chromedp.Text(chromedp.ID("pods"))); !strings.Contains(pods, "bound") || !strings.Contains(pods, "n1") {
		t.Errorf("the pods list lacks db-0 bound on n1: %s", pods)
	}

	// The list's live part refreshes in place (every second here): a pod
	// sent after the page loaded shows up without a reload.
	b.do("a live list", chromedp.Navigate(base+"/pods?refresh=1"), chromedp.WaitVisible(chromedp.ID("pods")),
		chromedp.Evaluate[chromedp.Void](`window.sameDocument = true`))
	apply(t, ctx, state, pod("late-1", 100, "", "example.com/wait"))
	b.do("the list refreshed", chromedp.WaitVisible(`//table[@id="pods"]//a[text()="default/late-1"]`))
	if same := run(b, "same document", chromedp.Evaluate[bool](`window.sameDocument === true`)); !same {
		t.Errorf("the page was reloaded rather than its live part")
	}

	b.do("the decision stream goes live", chromedp.Navigate(base+"/decisions"), chromedp.WaitVisible(chromedp.CSS("#stream-status.live")))
	apply(t, ctx, state, pod("web-1", 1500, ""), pod("web-2", 500, ""), pod("big-1", 16000, ""))
	b.do("the stream shows the new decisions",
		chromedp.WaitVisible(`//table[@id="decisions"]//td[text()="Bind"]/following-sibling::td/a[text()="default/web-1"]`),
		chromedp.WaitVisible(`//table[@id="decisions"]//td[text()="Unschedulable"]/following-sibling::td/a[text()="default/big-1"]`),
	)

	b.do("explain an unschedulable pod", chromedp.Navigate(base+"/pods/default/big-1"), chromedp.WaitVisible(chromedp.ID("explain")))
	failing := run(b, "failing plugins", chromedp.Evaluate[map[string]string](failingPluginsJS))
	want := map[string]string{"n1": "NodeResourcesFit", "n2": "NodeUnschedulable", "n3": "TaintToleration", "n4": "TaintToleration", "n5": "NodeResourcesFit"}
	if diff := cmp.Diff(want, failing); diff != "" {
		t.Errorf("failing plugin by node (-want +got):\n%s", diff)
	}
	if message := run(b, "kube's message", chromedp.Text(chromedp.ID("kube-message"))); !strings.HasPrefix(message, "0/5 nodes are available:") {
		t.Errorf("kube's message %q", message)
	}
	// The numbers behind n1's "Insufficient cpu": 16 cores asked.
	if short := run(b, "resources short", chromedp.Text(chromedp.ID("shortfalls"))); !strings.Contains(short, "n1") || !strings.Contains(short, "cpu\t16") {
		t.Errorf("the shortfalls lack n1's cpu: %q", short)
	}

	b.do("explain a bound pod", chromedp.Navigate(base+"/pods/default/web-1"), chromedp.WaitVisible(chromedp.CSS("#explain td.ok")))

	// A pod with two claims, one of them not sent yet: its page lists both
	// and the volume reason; once the claim arrives the pod is requeued and
	// bound, and its page says where its volumes are to be provisioned.
	apply(t, ctx, state, storageClass("fast"), claimObject("db-data", "fast"), podWithClaims("db-1", "db-data", "db-logs"))
	// The pod's page does not refresh on its own and the scheduler works
	// apart from Apply: reload until its attempt has failed (the reasons
	// come from the last failed attempt).
	b.reloadUntil("a pod waiting for its claim", base+"/pods/default/db-1",
		`//table[@id="volumes"]//td[text()="not found"]`, `//*[@id="volume-reasons"]`)
	if why := run(b, "volume reasons", chromedp.Text(chromedp.ID("volume-reasons"))); !strings.Contains(why, `persistentvolumeclaim "db-logs" not found`) {
		t.Errorf("the volume reasons say %q", why)
	}
	apply(t, ctx, state, claimObject("db-logs", "fast"))
	// Apply returns once the claim is held, before the requeued pod's
	// next attempt binds it: reload until it has.
	b.reloadUntil("the pod bound once its claim arrived", base+"/pods/default/db-1",
		`//table[@id="volumes"]//th[text()="db-logs"]/following-sibling::td[starts-with(text(), "to be provisioned on n")]`)
	b.do("the queue again", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("queue-chart")))
	for id, want := range map[string]string{"chart-y-label": "pods", "chart-x-label": "time (UTC)"} {
		if got := run(b, id, chromedp.TextContent(chromedp.ID(id))); got != want {
			t.Errorf("chart axis label %s = %q, want %q", id, got, want)
		}
	}
	// The chart's values at a moment: with the keyboard (the pointer's
	// handler reads the same sample), from /api/queue.
	b.do("the counts of the last sample", chromedp.Focus(chromedp.ID("queue-chart")), chromedp.KeyEvent(kb.End),
		chromedp.WaitVisible(`//div[@id="chart-tip"]/div[starts-with(text(), "active: ")]`))
	if tip := run(b, "chart tip", chromedp.Text(chromedp.ID("chart-tip"))); !strings.Contains(tip, "UTC") || !strings.Contains(tip, "unschedulable: ") || !strings.Contains(tip, " pods") {
		t.Errorf("the chart's tip says %q, want a time and the counts in pods", tip)
	}
	// "/" goes to the list's filter.
	b.do("slash to the filter", chromedp.Navigate(base+"/pods"), chromedp.WaitVisible(chromedp.ID("pods")), chromedp.KeyEvent("/"))
	if id := run(b, "focused", chromedp.Evaluate[string](`document.activeElement.id`)); id != "filter" {
		t.Errorf("after / the focus is on %q, want the filter", id)
	}
	b.checkConsole()
}

// TestDarkMode opens the nodes page in a browser set to dark: the page
// follows the system setting, and so does the heatmap's scale's legend.
func TestDarkMode(t *testing.T) {
	requireChromium(t)
	ctx, cancel := context.WithTimeout(t.Context(), browserLimit)
	defer cancel()
	d, err := dashboard.NewFleetDashboard(100, 10)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d)
	defer srv.Close()
	for _, tt := range []struct {
		name       string
		flags      []chromedp.ExecAllocatorOption
		background string
	}{
		{name: "light", background: "rgb(251, 252, 253)"},
		{name: "dark", flags: []chromedp.ExecAllocatorOption{chromedp.Flag("force-dark-mode", true)}, background: "rgb(18, 22, 28)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := newBrowser(t, ctx, tt.flags...)
			b.do("nodes", chromedp.Navigate(srv.URL+"/nodes"), chromedp.WaitVisible(`#heat-canvas[data-cells="100"]`))
			if got := run(b, "background", chromedp.Evaluate[string](`getComputedStyle(document.body).backgroundColor`)); got != tt.background {
				t.Errorf("background %s, want %s", got, tt.background)
			}
			b.checkConsole()
		})
	}
}

// hoverCellJS moves the pointer over cell i of the heatmap's first row
// and returns the tip's text.
func hoverCellJS(i int) string {
	return fmt.Sprintf(`(() => {
  const c = document.getElementById("heat-canvas"), r = c.getBoundingClientRect();
  c.dispatchEvent(new MouseEvent("mousemove", {clientX: r.left + 16 * %d + 4, clientY: r.top + 24, bubbles: true}));
  return document.getElementById("heat-tip").innerText;
})()`, i)
}

// failingPluginsJS maps each node of the explain table to the header of
// its failing filter cell.
const failingPluginsJS = `(() => {
  const table = document.getElementById("explain");
  const plugins = [...table.tHead.rows[1].cells].map(c => c.textContent.trim());
  const out = {};
  for (const row of table.tBodies[0].rows) {
    [...row.cells].slice(1).forEach((cell, i) => {
      if (cell.classList.contains("fail") && i < plugins.length && plugins[i] !== "Verdict") out[row.cells[0].textContent.trim()] = plugins[i];
    });
  }
  return out;
})()`

// startBerthd serves an in-process berthd with the dashboard, sampling
// every sampleEvery (0: the default), and a token file (rw writes, viewer
// reads); it returns the dashboard's base URL and a StateService client.
func startBerthd(t *testing.T, ctx context.Context, sampleEvery time.Duration) (string, berthv1.StateServiceClient) {
	t.Helper()
	tokens, err := auth.ParseTokens(strings.NewReader("rw\nviewer read-only\n"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := daemon.Open(ctx, daemon.Config{
		DataDir: t.TempDir(), Dashboard: true, Tokens: tokens, Deterministic: true,
		Edge: server.Edge{Authorizer: tokens}, DashboardSampleEvery: sampleEvery,
	})
	if err != nil {
		t.Fatal(err)
	}
	grpcLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	httpLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveCtx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- d.Serve(serveCtx, grpcLis, httpLis) }()
	t.Cleanup(func() {
		stop()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	conn, err := grpc.NewClient(grpcLis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return "http://" + httpLis.Addr().String(), berthv1.NewStateServiceClient(conn)
}

func node(name string, cpu int64, cordoned bool, taints ...*berthv1.Taint) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
		Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}, Taints: taints, Unschedulable: cordoned,
		Allocatable: map[string]int64{"cpu": cpu, "memory": 16 << 30, "pods": 110},
	}}}
}

func pod(name string, cpu int64, nodeName string, gates ...string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: &berthv1.Pod{
		Uid: "uid-" + name, Namespace: "default", Name: name, NodeName: nodeName, SchedulingGates: gates,
		Containers: []*berthv1.Container{{Name: "c", Requests: map[string]int64{"cpu": cpu, "memory": 1 << 30}}},
	}}}
}

// storageClass is a WaitForFirstConsumer class of a CSI provisioner.
func storageClass(name string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_StorageClass{StorageClass: &berthv1.StorageClass{
		Name: name, Provisioner: "disk.csi.example.com", VolumeBindingMode: berthv1.VolumeBindingMode_VOLUME_BINDING_MODE_WAIT_FOR_FIRST_CONSUMER,
	}}}
}

// claimObject is an unbound 1Gi claim of class.
func claimObject(name, class string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_PersistentVolumeClaim{PersistentVolumeClaim: &berthv1.PersistentVolumeClaim{
		Namespace: "default", Name: name, RequestBytes: 1 << 30, StorageClassName: &class,
		AccessModes: []berthv1.PersistentVolumeAccessMode{berthv1.PersistentVolumeAccessMode_PERSISTENT_VOLUME_ACCESS_MODE_READ_WRITE_ONCE},
	}}}
}

// podWithClaims is a small pending pod with one volume per claim, named as
// the claim.
func podWithClaims(name string, claims ...string) *berthv1.Object {
	o := pod(name, 100, "")
	for _, c := range claims {
		o.GetPod().Volumes = append(o.GetPod().Volumes, &berthv1.Volume{Name: c,
			Source: &berthv1.Volume_PersistentVolumeClaim{PersistentVolumeClaim: &berthv1.PersistentVolumeClaimVolumeSource{ClaimName: c}}})
	}
	return o
}

func apply(t *testing.T, ctx context.Context, state berthv1.StateServiceClient, objs ...*berthv1.Object) {
	t.Helper()
	ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer rw")
	resp, err := state.Apply(ctx, &berthv1.ApplyRequest{Objects: objs}, grpc.WaitForReady(true))
	if err != nil || len(resp.GetErrors()) > 0 {
		t.Fatalf("Apply: %v %v", err, resp.GetErrors())
	}
}

// browser is one headless chromium tab that records console errors and
// uncaught exceptions.
type browser struct {
	t   *testing.T
	ctx context.Context

	mu       sync.Mutex
	problems []string
	allowed  []string      // console messages expected, by substring
	done     chan struct{} // closed when the console is read to its end
}

func newBrowser(t *testing.T, ctx context.Context, extra ...chromedp.ExecAllocatorOption) *browser {
	t.Helper()
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, append([]chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless,
		chromedp.NoSandbox, // as root
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 800),
	}, extra...)...)
	tab, cancelTab := chromedp.NewContext(alloc)
	b := &browser{t: t, ctx: tab, done: make(chan struct{})}
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		<-b.done
	})
	console := chromedp.Console(tab)
	go func() {
		defer close(b.done)
		for m, err := range console {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				b.problem(fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line))
			}
		}
	}()
	return b
}

func (b *browser) problem(p string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, a := range b.allowed {
		if strings.Contains(p, a) {
			return
		}
	}
	b.problems = append(b.problems, p)
}

// allow lets console messages containing text pass checkConsole.
func (b *browser) allow(text string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.allowed = append(b.allowed, text)
}

// do runs steps, failing the test now if one fails.
func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	start := time.Now()
	defer func() { b.t.Logf("%s: %v", what, time.Since(start).Round(time.Millisecond)) }()
	ctx, cancel := context.WithTimeout(b.ctx, stepLimit)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.checkConsole()
		b.t.Fatalf("%s: %v\npage:\n%s", what, err, b.mainText())
	}
}

// reloadUntil loads url again and again, for up to stepLimit, until the
// page holds an element for each XPath, and then checks that they are
// visible; for pages with no live part, whose content changes only when
// loaded again. It fails the test now if they never all appear.
func (b *browser) reloadUntil(what, url string, xpaths ...string) {
	b.t.Helper()
	start := time.Now()
	ctx, cancel := context.WithTimeout(b.ctx, stepLimit)
	defer cancel()
	present := `((xpaths) => xpaths.every(x => document.evaluate(x, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue !== null))(` + jsStrings(xpaths) + `)`
	loads := 0
	for {
		loads++
		var found bool
		err := chromedp.Do(ctx, chromedp.Navigate(url))
		if err == nil {
			found, err = chromedp.Run(ctx, chromedp.Evaluate[bool](present))
		}
		if err == nil && found {
			break
		}
		if err != nil || ctx.Err() != nil {
			b.checkConsole()
			b.t.Fatalf("%s: not there after %d loads in %v (%v)\npage:\n%s", what, loads, time.Since(start).Round(time.Millisecond), err, b.mainText())
		}
		time.Sleep(200 * time.Millisecond)
	}
	waits := make([]chromedp.Action[chromedp.Void], len(xpaths))
	for i, x := range xpaths {
		waits[i] = chromedp.WaitVisible(x)
	}
	b.do(what+", visible", waits...)
	b.t.Logf("%s: %d loads, %v", what, loads, time.Since(start).Round(time.Millisecond))
}

// jsStrings is a JavaScript array literal of ss.
func jsStrings(ss []string) string {
	out, _ := json.Marshal(ss)
	return string(out)
}

// run runs an action that returns a value, failing the test now if it
// fails.
func run[T any](b *browser, what string, a chromedp.Action[T]) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, a)
	if err != nil {
		b.checkConsole()
		b.t.Fatalf("%s: %v", what, err)
	}
	return v
}

// mainText is the text of the page's main section, to tell what a failed
// step saw.
func (b *browser) mainText() string {
	ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
	defer cancel()
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("main")?.innerText ?? document.body.innerText`))
	if err != nil {
		return err.Error()
	}
	return text
}

// shot saves a screenshot of the whole page into dir.
func (b *browser) shot(dir, name string) {
	b.t.Helper()
	b.do("settle", chromedp.Sleep(300*time.Millisecond))
	png := run(b, "screenshot "+name, chromedp.FullScreenshot(100))
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// checkConsole fails the test for every console error and uncaught
// exception seen so far.
func (b *browser) checkConsole() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		b.t.Errorf("browser: %s", p)
	}
	b.problems = nil
}

// TestServedByBerthd checks the wiring without a browser: the dashboard is
// on berthd's metrics listener behind the tokens, and /metrics and
// /healthz stay open.
func TestServedByBerthd(t *testing.T) {
	base, _ := startBerthd(t, t.Context(), 0)
	tests := []struct {
		path, token string
		want        int
	}{
		{path: "/", want: http.StatusUnauthorized},
		{path: "/", token: "viewer", want: http.StatusOK},
		{path: "/nodes", token: "rw", want: http.StatusOK},
		{path: "/metrics", want: http.StatusOK},
		{path: "/healthz", want: http.StatusOK},
	}
	for _, tt := range tests {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+tt.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tt.token != "" {
			req.Header.Set("Authorization", "Bearer "+tt.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("GET %s with token %q: %d, want %d", tt.path, tt.token, resp.StatusCode, tt.want)
		}
	}
}
