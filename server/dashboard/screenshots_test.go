package dashboard_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// screenshotsEnv names the directory TestScreenshots writes the README's
// screenshots to:
//
//	BERTH_DASHBOARD_SCREENSHOTS=$PWD/docs/img go test -run TestScreenshots ./server/dashboard/
const screenshotsEnv = "BERTH_DASHBOARD_SCREENSHOTS"

// TestScreenshots takes the README's screenshots of a fleet of 2,000
// nodes, busy and not quite healthy: zone-2 nearly full, a few nodes
// cordoned, tainted or NotReady, pods gated and released in waves, a few
// that fit nowhere. It runs only when asked to (screenshotsEnv).
func TestScreenshots(t *testing.T) {
	dir := os.Getenv(screenshotsEnv)
	if dir == "" {
		t.Skipf("set %s to a directory to take the README's screenshots", screenshotsEnv)
	}
	requireChromium(t)
	ctx := t.Context()
	base, state := startBerthd(t, ctx, 200*time.Millisecond)
	const nodes = 2000
	applyFleet(t, ctx, state, 0, nodes)
	// One bound pod a node, using a share of its 16 cores that grows from
	// zone-0 to zone-2, with some spread.
	var objs []*berthv1.Object
	for i := range nodes {
		share := []int64{25, 55, 85}[i%3] + int64(i*37%30) - 10
		objs = append(objs, fleetPod(fmt.Sprintf("svc-%04d", i), min(share, 100)*160, fleetNodeName(i)))
		if len(objs) == 500 {
			apply(t, ctx, state, objs...)
			objs = nil
		}
	}
	for i, cpu := range []int64{2000, 1500, 3000, 500, 4000, 1000, 2500, 6000, 750, 1250} {
		apply(t, ctx, state, pod(fmt.Sprintf("api-%d", i), cpu, ""))
	}
	// Waves over a few seconds, so that the chart has a shape: gated
	// pods arrive and are released, a few fit nowhere.
	for i := range 16 {
		apply(t, ctx, state, pod(fmt.Sprintf("batch-%d", i), 250, "", "example.com/quota"))
		if i%4 == 1 {
			apply(t, ctx, state, pod(fmt.Sprintf("train-%d", i/4), 24000, ""))
		}
		if i >= 8 {
			apply(t, ctx, state, pod(fmt.Sprintf("batch-%d", i-8), 250, ""))
		}
		time.Sleep(250 * time.Millisecond)
	}
	time.Sleep(time.Second)

	b := newBrowser(t, ctx)
	b.do("log in", chromedp.Navigate(base+"/?token=viewer&size=15"), chromedp.WaitVisible(chromedp.ID("queue-chart")))
	b.shot(dir, "dashboard-queue.png")
	b.do("pods", chromedp.Navigate(base+"/pods?q=api&sort=-priority"), chromedp.WaitVisible(chromedp.ID("pods")))
	b.shot(dir, "dashboard-pods.png")
	heatmap := chromedp.WaitVisible(fmt.Sprintf(`#heat-canvas[data-cells="%d"]`, nodes))
	b.do("nodes", chromedp.Navigate(base+"/nodes?size=15&sort=-cpu"), heatmap)
	b.shot(dir, "dashboard-nodes.png")
	b.do("nodes by state", chromedp.Navigate(base+"/nodes?color=state&size=15&sort=state"), heatmap)
	b.shot(dir, "dashboard-nodes-state.png")
	b.do("a node", chromedp.Navigate(base+"/nodes/"+fleetNodeName(30)), chromedp.WaitVisible(chromedp.ID("node-resources")))
	b.shot(dir, "dashboard-node.png")
	b.do("decisions", chromedp.Navigate(base+"/decisions"), chromedp.WaitVisible(chromedp.CSS("#stream-status.live")))
	apply(t, ctx, state, pod("web-0", 1000, ""))
	b.do("decision", chromedp.WaitVisible(`//a[text()="default/web-0"]`))
	b.shot(dir, "dashboard-decisions.png")
	b.do("explain", chromedp.Navigate(base+"/pods/default/train-0?size=12"), chromedp.WaitVisible(chromedp.ID("explain")))
	b.shot(dir, "dashboard-explain.png")
	b.do("explain scores", chromedp.Navigate(base+"/pods/default/api-3?size=12"), chromedp.WaitVisible(chromedp.ID("explain")))
	b.shot(dir, "dashboard-explain-scores.png")
	b.checkConsole()

	dark := newBrowser(t, ctx, chromedp.Flag("force-dark-mode", true))
	dark.do("log in, dark", chromedp.Navigate(base+"/nodes?token=viewer&size=15&sort=-cpu"), heatmap)
	dark.shot(dir, "dashboard-nodes-dark.png")
	dark.checkConsole()
}
