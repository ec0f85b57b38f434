package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/plugins/registry"
)

// Option adds to the berthd that Main runs, as kube-scheduler's
// app.Option does.
type Option func(*extensions) error

// extensions are what Options add: plugins beyond the in-tree ones.
type extensions struct {
	plugins runtime.Registry
}

// WithPlugin adds a plugin to berthd's registry under name, so that a
// KubeSchedulerConfiguration (--scheduler-config) may enable it and give
// it args. A name registered already, in-tree or by another WithPlugin,
// stops berthd at start with an error naming it.
func WithPlugin(name string, factory framework.PluginFactory) Option {
	return func(e *extensions) error {
		if name == "" || factory == nil {
			return errors.New("WithPlugin needs a name and a factory")
		}
		return e.plugins.Register(name, factory)
	}
}

// newExtensions applies opts and checks that the plugins they add are not
// in-tree ones.
func newExtensions(opts []Option) (extensions, error) {
	e := extensions{plugins: runtime.Registry{}}
	for _, opt := range opts {
		if err := opt(&e); err != nil {
			return extensions{}, err
		}
	}
	if err := registry.InTree().Merge(e.plugins); err != nil {
		return extensions{}, err
	}
	return e, nil
}

// pluginNames are the added plugins' names, sorted.
func (e extensions) pluginNames() []string {
	names := make([]string, 0, len(e.plugins))
	for name := range e.plugins {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Main is berthd: `berthd verify ...` checks a data directory, anything
// else runs the daemon with args as its flags until ctx ends. It writes
// the version and the verify report to stdout, logs and errors to stderr,
// and returns the process's exit code (see the package doc). A program
// embedding berthd calls it from its main with its own Options.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, opts ...Option) int {
	if len(args) > 0 && args[0] == "verify" {
		return runVerify(ctx, args[1:], stdout, stderr)
	}
	err := run(ctx, args, stdout, stderr, opts...)
	var usage *usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "berthd: %v\nRun 'berthd --help' for usage.\n", err)
	default:
		fmt.Fprintln(stderr, "berthd:", err)
	}
	return exitCode(err)
}

// usageError is a bad command line: an unknown flag, a value that does
// not parse, settings that do not go together (exit code 2).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}
