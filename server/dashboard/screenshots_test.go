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

// TestScreenshots takes the README's screenshots of a small, busy
// cluster; it runs only when asked to (screenshotsEnv).
func TestScreenshots(t *testing.T) {
	dir := os.Getenv(screenshotsEnv)
	if dir == "" {
		t.Skipf("set %s to a directory to take the README's screenshots", screenshotsEnv)
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("%s: %v", chromiumPath, err)
	}
	ctx := t.Context()
	base, state := startBerthd(t, ctx, 200*time.Millisecond)
	gpu := &berthv1.Taint{Key: "gpu", Value: "true", Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_SCHEDULE}
	notReady := node("node-c1", 8000, false)
	notReady.GetNode().Conditions = []*berthv1.NodeCondition{{Type: berthv1.NodeConditionType_NODE_CONDITION_TYPE_READY, Status: berthv1.ConditionStatus_CONDITION_STATUS_FALSE}}
	apply(t, ctx, state,
		node("node-a1", 8000, false), node("node-a2", 8000, false), node("node-a3", 16000, false),
		node("node-b1", 16000, false), node("node-b2", 4000, true), notReady, node("node-gpu", 32000, false, gpu))
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
	b.do("log in", chromedp.Navigate(base+"/?token=viewer"), chromedp.WaitVisible(chromedp.ID("queue-chart")))
	b.shot(dir, "dashboard-queue.png")
	b.do("pods", chromedp.Navigate(base+"/pods?q=api"), chromedp.WaitVisible(chromedp.ID("pods")))
	b.shot(dir, "dashboard-pods.png")
	b.do("nodes", chromedp.Navigate(base+"/nodes"), chromedp.WaitVisible(chromedp.ID("heatmap")))
	b.shot(dir, "dashboard-nodes.png")
	b.do("decisions", chromedp.Navigate(base+"/decisions"), chromedp.WaitVisible(chromedp.CSS("#stream-status.live")))
	apply(t, ctx, state, pod("web-0", 1000, ""))
	b.do("decision", chromedp.WaitVisible(`//a[text()="default/web-0"]`))
	b.shot(dir, "dashboard-decisions.png")
	b.do("explain", chromedp.Navigate(base+"/pods/default/train-0"), chromedp.WaitVisible(chromedp.ID("explain")))
	b.shot(dir, "dashboard-explain.png")
	b.do("explain scores", chromedp.Navigate(base+"/pods/default/api-3"), chromedp.WaitVisible(chromedp.ID("explain")))
	b.shot(dir, "dashboard-explain-scores.png")
	b.checkConsole()
}
