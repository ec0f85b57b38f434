// Command custom-plugin is berthd with one plugin of its own: the
// PreferNodeLabel Score plugin (package prefernodelabel), added to the
// registry with app.WithPlugin, as kube-scheduler is extended out of tree.
// It takes berthd's flags; scheduler-config.yaml in this folder enables
// the plugin:
//
//	go run ./examples/custom-plugin --scheduler-config examples/custom-plugin/scheduler-config.yaml
//
// berthd logs the profile's plugins at start, PreferNodeLabel among them.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/berthsched/berth/cmd/berthd/app"
	"github.com/berthsched/berth/examples/custom-plugin/prefernodelabel"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	code := app.Main(ctx, os.Args[1:], os.Stdout, os.Stderr, withPlugins()...)
	stop()
	os.Exit(code)
}

// withPlugins are the Options adding this program's plugins.
func withPlugins() []app.Option {
	return []app.Option{app.WithPlugin(prefernodelabel.Name, prefernodelabel.New)}
}
