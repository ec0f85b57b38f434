package dashboard_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/dashboard"
)

// The budget the dashboard keeps at fleet scale (issue 34): every page's
// HTML under budgetHTML at 5,000 nodes and 10,000 pods, and the heatmap of
// 50,000 nodes drawn on a canvas, not as DOM rows.
const (
	budgetHTML = 300 << 10
	// budgetDOM bounds the elements of any page: tables are paged, the
	// heatmap is one canvas.
	budgetDOM = 6000
	// budgetHeatPage bounds one answer of /api/heatmap.
	budgetHeatPage = 600 << 10
)

// TestBudget builds a fleet in a real berthd, 5,000 nodes in three zones
// and two pools with some cordoned, tainted and NotReady, and 10,000 pods
// (8,000 bound, 1,990 gated, 10 that fit nowhere); it fetches every page
// and checks its HTML against budgetHTML, opens each in chromium and checks
// its elements against budgetDOM with no console error; then it grows the
// fleet to 50,000 nodes and checks that the heatmap draws every one of
// them (over a generated fleet unless budgetBerthdEnv is set). The time
// the heatmap took to render goes to the test log: the
// machine running the tests is shared, so it is measured, not asserted.
func TestBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 50,000-node fleet")
	}
	requireChromium(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*browserLimit)
	defer cancel()
	base, state := startBerthd(t, ctx, 0)
	start := time.Now()
	applyFleet(t, ctx, state, 0, 5000)
	var objs []*berthv1.Object
	for i := range 10000 {
		name := fmt.Sprintf("pod-%05d", i)
		switch {
		case i < 8000:
			objs = append(objs, fleetPod(name, 250, fleetNodeName(i%5000)))
		case i < 9990:
			objs = append(objs, fleetPod(name, 250, "", "example.com/quota"))
		default:
			objs = append(objs, fleetPod(name, 64000, ""))
		}
		if len(objs) == 1000 {
			apply(t, ctx, state, objs...)
			objs = nil
		}
	}
	t.Logf("5,000 nodes and 10,000 pods applied in %v", time.Since(start).Round(time.Millisecond))

	pages := []string{"/", "/?size=250", "/?state=unschedulable", "/pods", "/pods?state=bound&sort=-priority&size=250",
		"/nodes", "/nodes?size=250&sort=-cpu", "/nodes?color=state&state=notready", "/nodes/" + fleetNodeName(1),
		"/decisions", "/pods/fleet/pod-09995", "/pods/fleet/pod-00001"}
	for _, path := range pages {
		body := fetch(t, ctx, base+path)
		t.Logf("%s: %d KB of HTML", path, len(body)>>10)
		if len(body) > budgetHTML {
			t.Errorf("%s: %d bytes of HTML, over the budget of %d", path, len(body), budgetHTML)
		}
	}

	b := newBrowser(t, ctx)
	b.do("log in", chromedp.Navigate(base+"/?token=viewer"), chromedp.WaitVisible(chromedp.ID("count-active")))
	for _, path := range pages {
		ready := chromedp.WaitReady(chromedp.ID("main"))
		if strings.HasPrefix(path, "/nodes?") || path == "/nodes" {
			ready = chromedp.WaitVisible(`#heat-canvas[data-cells="5000"], #heat-canvas[data-render-ms]`)
		}
		b.do(path, chromedp.Navigate(base+path), ready)
		if n := run(b, "elements of "+path, chromedp.Evaluate[int](`document.getElementsByTagName("*").length`)); n > budgetDOM {
			t.Errorf("%s: %d elements, over the budget of %d", path, n, budgetDOM)
		} else {
			t.Logf("%s: %d elements", path, n)
		}
	}
	b.checkConsole()

	// 50,000 nodes: in the real berthd when asked (budgetBerthdEnv), else
	// over a generated fleet.
	heatBase := base
	if os.Getenv(budgetBerthdEnv) != "" {
		start = time.Now()
		applyFleet(t, ctx, state, 5000, 50000)
		t.Logf("45,000 more nodes applied in %v", time.Since(start).Round(time.Millisecond))
	} else {
		d, err := dashboard.NewFleetDashboard(50000, 0)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(d)
		t.Cleanup(srv.Close)
		heatBase = srv.URL
	}
	start = time.Now()
	heat := fetch(t, ctx, heatBase+"/api/heatmap")
	t.Logf("/api/heatmap at 50,000 nodes: %d KB a page, the first in %v", len(heat)>>10, time.Since(start).Round(time.Millisecond))
	if len(heat) > budgetHeatPage {
		t.Errorf("/api/heatmap: %d bytes a page, over the budget of %d", len(heat), budgetHeatPage)
	}
	if body := fetch(t, ctx, heatBase+"/nodes"); len(body) > budgetHTML {
		t.Errorf("/nodes at 50,000 nodes: %d bytes of HTML, over the budget of %d", len(body), budgetHTML)
	}
	b.do("the heatmap of 50,000 nodes", chromedp.Navigate(heatBase+"/nodes"), chromedp.WaitVisible(`#heat-canvas[data-cells="50000"]`))
	got := run(b, "the heatmap's timings", chromedp.Evaluate[map[string]string](`(() => {
  const c = document.getElementById("heat-canvas");
  return {render: c.dataset.renderMs, draw: c.dataset.drawMs, elements: String(document.getElementsByTagName("*").length), height: String(c.clientHeight)};
})()`))
	t.Logf("heatmap of 50,000 nodes: rendered %s ms after the navigation started (drawing alone %s ms), %s px high, %s elements in the page",
		got["render"], got["draw"], got["height"], got["elements"])
	if n, _ := strconv.Atoi(got["elements"]); n > budgetDOM {
		t.Errorf("/nodes at 50,000 nodes: %d elements, over the budget of %d", n, budgetDOM)
	}
	// Grouped by hostname, one group a node: drawn as one.
	b.do("grouped by hostname", chromedp.Navigate(heatBase+"/nodes?group=kubernetes.io/hostname"), chromedp.WaitVisible(`#heat-canvas[data-cells="50000"][data-groups="1"]`))
	b.checkConsole()
}

// budgetBerthdEnv makes TestBudget grow its berthd to 50,000 nodes rather
// than show a generated fleet (a minute more on two cores):
//
//	BERTH_DASHBOARD_BUDGET_BERTHD=1 go test -run TestBudget -v ./server/dashboard/
const budgetBerthdEnv = "BERTH_DASHBOARD_BUDGET_BERTHD"

// requireChromium skips without chromium, but fails under CI.
func requireChromium(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s: %v; CI must install Debian's chromium (.ci/run does)", chromiumPath, err)
		}
		t.Skipf("no %s (apt-get install chromium); CI=true makes this a failure", chromiumPath)
	}
}

func fleetNodeName(i int) string { return fmt.Sprintf("node-%05d", i) }

// applyFleet applies nodes from to to: in zones zone-0..2 and pools
// general (nine nodes in ten) and gpu, every 50th cordoned, every 97th NotReady, every 31st
// tainted.
func applyFleet(t *testing.T, ctx context.Context, state berthv1.StateServiceClient, from, to int) {
	t.Helper()
	var objs []*berthv1.Object
	for i := from; i < to; i++ {
		n := node(fleetNodeName(i), 16000, i%50 == 0)
		n.GetNode().Labels["topology.kubernetes.io/zone"] = fmt.Sprintf("zone-%d", i%3)
		n.GetNode().Labels["node.kubernetes.io/pool"] = []string{"gpu", "general"}[min(i%10, 1)]
		if i%97 == 0 {
			n.GetNode().Conditions = []*berthv1.NodeCondition{{Type: berthv1.NodeConditionType_NODE_CONDITION_TYPE_READY, Status: berthv1.ConditionStatus_CONDITION_STATUS_FALSE}}
		}
		if i%31 == 0 {
			n.GetNode().Taints = []*berthv1.Taint{{Key: "dedicated", Value: "batch", Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_SCHEDULE}}
		}
		objs = append(objs, n)
		if len(objs) == 1000 {
			apply(t, ctx, state, objs...)
			objs = nil
		}
	}
	if len(objs) > 0 {
		apply(t, ctx, state, objs...)
	}
}

func fleetPod(name string, cpu int64, nodeName string, gates ...string) *berthv1.Object {
	p := pod(name, cpu, nodeName, gates...)
	p.GetPod().Namespace = "fleet"
	return p
}

// fetch GETs url with the viewer's token and returns the body of a 200.
func fetch(t *testing.T, ctx context.Context, url string) []byte {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer viewer")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v\n%.500s", url, resp.StatusCode, err, body)
	}
	return body
}
