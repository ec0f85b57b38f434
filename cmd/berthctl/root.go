package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	benchcli "github.com/berthsched/berth/bench/cli"
	"github.com/berthsched/berth/cmd/internal/version"
)

// streams are the command's standard input, output and error.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// Defaults of the global flags.
const (
	// defaultServer is berthd's default --listen address.
	defaultServer  = "127.0.0.1:7070"
	serverEnv      = "BERTH_SERVER"
	defaultTimeout = 30 * time.Second
)

// app is what every command shares: the streams and the global flags.
type app struct {
	streams
	conn connOptions
	// newTimer makes watch's --idle-timeout timer; nil means a real one.
	newTimer func(time.Duration) idleTimer
	// now is the clock of ages in tables; nil means time.Now.
	now func() time.Time
	// entered is set once a command's own code runs, so errors from cobra's
	// parsing (usage errors) can be told from the command's.
	entered bool
}

// run is berthctl: it returns the exit code.
func run(ctx context.Context, args []string, s streams, getenv func(string) string) int {
	a := &app{streams: s}
	return a.run(ctx, args, getenv)
}

// run is berthctl with a's streams and test hooks.
func (a *app) run(ctx context.Context, args []string, getenv func(string) string) int {
	s := a.streams
	root := a.rootCommand(getenv)
	if bad := unknownLeadingFlag(root.PersistentFlags(), args); bad != "" {
		// cobra would take the word after it as its value and report the
		// word after that as an unknown command.
		fmt.Fprintf(s.err, "berthctl: unknown flag: %s\nRun 'berthctl --help' for usage.\n", bad)
		return exitUsage
	}
	root.SetArgs(args)
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	if e := (*exitError)(nil); !errors.As(err, &e) && !a.entered {
		err = &exitError{code: exitUsage, err: err}
	}
	fmt.Fprintln(s.err, "berthctl:", err)
	code := exitCode(err)
	if code == exitUsage {
		path := "berthctl"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		fmt.Fprintf(s.err, "Run '%s --help' for usage.\n", path)
	}
	return code
}

// unknownLeadingFlag returns the first flag before the command name that
// the root command does not define, "" if there is none.
func unknownLeadingFlag(fs *pflag.FlagSet, args []string) string {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" || arg == "-" || !strings.HasPrefix(arg, "-") {
			return "" // the command name (or operands) from here on
		}
		name, _, inline := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		var f *pflag.Flag
		switch {
		case strings.HasPrefix(arg, "--"):
			f = fs.Lookup(name)
		case len(name) == 1:
			f = fs.ShorthandLookup(name)
		default:
			return "" // grouped shorthands: cobra's to judge
		}
		if f == nil {
			if name == "help" || name == "h" || name == "version" {
				continue // added by cobra when it runs
			}
			flag, _, _ := strings.Cut(arg, "=")
			return flag
		}
		if !inline && f.NoOptDefVal == "" {
			i++ // its value is the next argument
		}
	}
	return ""
}

const exitCodesHelp = `Exit codes:
  0  success
  1  the operation failed (invalid manifests, objects refused, request rejected)
  2  usage error (unknown command or flag, bad flag value, missing argument,
     a --server that is not host:port or unix:///path)
  3  berthd cannot be reached, is unavailable or timed out
  4  not found (the pod or object named does not exist)
  5  not authorized (missing or wrong token, permission denied, client
     certificate missing or refused by berthd's mutual TLS)
  6  refused by a disruption budget (evict, drain: the eviction API allows
     no disruption now; retry later)`

func (a *app) rootCommand(getenv func(string) string) *cobra.Command {
	root := &cobra.Command{
		Use:     "berthctl",
		Version: version.Get().String(),
		Short:   "Drive and inspect Berth, the standalone Kubernetes-compatible scheduler",
		Long: `berthctl simulates Kubernetes manifests with Berth's scheduler in-process,
and drives a running berthd over its gRPC API (berth.v1).

Shell completion (commands, flags, the kinds of get and delete, and pod and
node names asked of berthd): source the script of berthctl completion SHELL,
for example: source <(berthctl completion bash).

` + exitCodesHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			a.entered = true
			return a.conn.validate(cmd)
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &exitError{code: exitUsage, err: err}
	})
	root.SetVersionTemplate("berthctl {{.Version}}\n")
	root.Flags().Bool("version", false, "print berthctl's version and commit (berthctl version also asks berthd)")
	a.conn.addFlags(root.PersistentFlags(), getenv)
	// One default in the help, the one in force: $BERTH_SERVER's when set.
	root.PersistentFlags().Lookup("server").Usage = "berthd's gRPC address, host:port or unix:///path, or the replicas' as a comma-separated list (writes follow the leader); $" + serverEnv + " sets the default"
	root.AddCommand(
		a.simulateCommand(),
		a.applyCommand(),
		a.deleteCommand(),
		a.watchCommand(),
		a.explainCommand(),
		a.evictCommand(),
		a.cordonCommand(true),
		a.cordonCommand(false),
		a.drainCommand(),
		a.descheduleCommand(),
		a.getCommand(),
		a.statsCommand(),
		a.confirmCommand(),
		a.failCommand(),
		a.versionCommand(),
		benchcli.Command(), // its own --server and --timeout shadow the global ones
	)
	return root
}

func (a *app) clock() time.Time {
	if a.now != nil {
		return a.now()
	}
	return time.Now()
}

// oneOf checks a flag whose value must be one of choices.
func oneOf(flag, value string, choices ...string) error {
	for _, c := range choices {
		if value == c {
			return nil
		}
	}
	return usageErrorf("--%s must be one of %q, got %q", flag, choices, value)
}

// noArgs, exactArgs are cobra argument checks that fail as usage errors.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("%s takes no arguments, got %q", cmd.CommandPath(), args)
	}
	return nil
}

func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf("%s needs %s", cmd.CommandPath(), what)
		}
		return nil
	}
}

// outputFlag adds -o/--output.
func outputFlag(fs *pflag.FlagSet, p *string, def, usage string) {
	fs.StringVarP(p, "output", "o", def, usage)
}
