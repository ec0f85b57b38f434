package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
)

// Exit codes of berthd and berthd verify.
const (
	exitOK = 0
	// exitFailure: any other failure (flags, listeners, a locked data
	// directory, a verify that could not check).
	exitFailure = 1
	// exitUsage: a bad command line (an unknown flag, a value that does
	// not parse, settings that do not go together), as berthctl's.
	exitUsage = 2
	// exitCorrupt: the data file is damaged (berthd refuses to start on a
	// corrupt data file; verify found damage).
	exitCorrupt = 3
	// exitLogTruncated: the write-ahead file lost acknowledged decisions;
	// berthd starts only with --accept-truncated-log.
	exitLogTruncated = 4
)

// exitCode is the exit code for run's error.
func exitCode(err error) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, new(*usageError)):
		return exitUsage
	case errors.Is(err, store.ErrLogTruncated):
		return exitLogTruncated
	case errors.Is(err, store.ErrCorrupt):
		return exitCorrupt
	}
	return exitFailure
}

// runVerify is `berthd verify --data-dir DIR`: it checks the data
// directory of a stopped berthd (the data file's header and pages, every
// record's checksum, revision contiguity, keyspace values, the
// write-ahead file and its high-water mark), prints what it found to
// stdout and returns the exit code: 0 clean, exitCorrupt with the damage
// listed, exitFailure when it could not check.
func runVerify(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("berthd verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data-dir", "./berth-data", "data directory to check (berthd must not be running on it)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitFailure
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "berthd verify: unexpected arguments %q\n", fs.Args())
		return exitFailure
	}
	rep, err := bboltstore.Verify(ctx, *dataDir, bboltstore.Options{LockTimeout: storeLockTimeout})
	if err != nil {
		fmt.Fprintln(stderr, "berthd verify:", err)
		return exitFailure
	}
	printReport(stdout, rep)
	if !rep.OK() {
		return exitCorrupt
	}
	return exitOK
}

// printReport writes the report: what was checked, then every problem.
func printReport(w io.Writer, rep *bboltstore.VerifyReport) {
	if rep.SchemaVersion == 0 { // its header or bbolt's structure failed first
		fmt.Fprintf(w, "data file:       %s\n", rep.Path)
	} else {
		fmt.Fprintf(w, "data file:       %s (schema version %d)\n", rep.Path, rep.SchemaVersion)
		fmt.Fprintf(w, "records:         %d, revisions %d-%d\n", rep.Records, rep.First, rep.Last)
	}
	switch {
	case rep.SchemaVersion == 0:
	case rep.ChecksumFrom > rep.First && rep.Records > 0:
		fmt.Fprintf(w, "checksums:       from revision %d (older records were written before checksums)\n", rep.ChecksumFrom)
	default:
		fmt.Fprintf(w, "checksums:       every record\n")
	}
	if rep.Replay > 0 {
		fmt.Fprintf(w, "write-ahead:     %d groups to replay, up to revision %d\n", rep.Replay, rep.ReplayLast)
	}
	if rep.OK() {
		fmt.Fprintln(w, "result:          ok")
		return
	}
	fmt.Fprintf(w, "result:          %d problems\n", len(rep.Problems))
	if len(rep.Damaged) > 0 {
		fmt.Fprintf(w, "damaged revisions: %v\n", rep.Damaged)
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(w, "  -", p)
	}
}
