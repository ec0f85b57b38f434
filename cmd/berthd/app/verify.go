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

// runVerify is `berthd verify --data-dir DIR [--repair]`: it checks the
// data directory of a stopped berthd (the data file's header and pages,
// every record's checksum, revision contiguity, keyspace values, the
// write-ahead file and its high-water mark), prints what it found to
// stdout and returns the exit code: 0 clean, exitCorrupt with the damage
// listed, exitFailure when it could not check. With --repair it then drops
// the damaged keyspace values, after keeping a copy of the files in the
// data directory, and checks again: the exit code is the second check's.
func runVerify(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("berthd verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data-dir", "./berth-data", "data directory to check (berthd must not be running on it)")
	repair := fs.Bool("repair", false, "drop damaged keyspace values (derived state: nominations, binds awaiting their outcome, messages, timers; "+
		"berthd skips them anyway) after copying berth.db and berth.wal into DATA-DIR/backup-<time>/; damaged decisions are never dropped")
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
	if *repair && len(rep.DamagedValues) > 0 {
		if rep, err = runRepair(ctx, *dataDir, stdout); err != nil {
			fmt.Fprintln(stderr, "berthd verify --repair:", err)
			return exitFailure
		}
	}
	if !rep.OK() {
		return exitCorrupt
	}
	return exitOK
}

// runRepair drops the damaged keyspace values, prints what it did and
// returns the report of a second check.
func runRepair(ctx context.Context, dir string, w io.Writer) (*bboltstore.VerifyReport, error) {
	opts := bboltstore.Options{LockTimeout: storeLockTimeout}
	done, err := bboltstore.Repair(ctx, dir, opts)
	if done != nil && done.Backup != "" {
		fmt.Fprintf(w, "repair:          kept a copy of the data file and the write-ahead file in %s\n", done.Backup)
	}
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "repair:          dropped %d damaged keyspace values\n", len(done.Dropped))
	for _, v := range done.Dropped {
		fmt.Fprintf(w, "  - %s %q\n", v.Space, v.Key)
	}
	rep, err := bboltstore.Verify(ctx, dir, opts)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(w, "after repair:")
	printReport(w, rep)
	return rep, nil
}

// printReport writes the report: what was checked, then every problem.
func printReport(w io.Writer, rep *bboltstore.VerifyReport) {
	if rep.SchemaVersion == 0 { // its header or bbolt's structure failed first
		fmt.Fprintf(w, "data file:       %s\n", rep.Path)
	} else {
		fmt.Fprintf(w, "data file:       %s (schema version %d)\n", rep.Path, rep.SchemaVersion)
		if rep.Records == 0 {
			fmt.Fprintln(w, "records:         none yet")
		} else {
			fmt.Fprintf(w, "records:         %d, revisions %d-%d\n", rep.Records, rep.First, rep.Last)
		}
	}
	switch {
	case rep.SchemaVersion == 0:
	case rep.ChecksumFrom > rep.First && rep.Records > 0:
		fmt.Fprintf(w, "checksums:       from revision %d (older records were written before checksums)\n", rep.ChecksumFrom)
	default:
		fmt.Fprintf(w, "checksums:       every record\n")
	}
	printWAL(w, rep)
	if rep.OK() {
		fmt.Fprintln(w, "result:          ok")
		return
	}
	fmt.Fprintf(w, "result:          %s\n", plural(len(rep.Problems), "problem"))
	if len(rep.Damaged) > 0 {
		fmt.Fprintf(w, "damaged revisions: %v\n", rep.Damaged)
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(w, "  -", p)
	}
}

// printWAL says what the write-ahead file holds: where it is, what a start
// would replay from it, and its high-water mark.
func printWAL(w io.Writer, rep *bboltstore.VerifyReport) {
	wal := rep.WAL
	switch {
	case wal.Path == "": // the data file failed first
		return
	case !wal.Present:
		fmt.Fprintf(w, "write-ahead:     %s absent (the next start creates it)\n", wal.Path)
		return
	}
	fmt.Fprintf(w, "write-ahead:     %s, %d bytes; the data file holds its groups up to %d\n", wal.Path, wal.Size, wal.Applied)
	if rep.Replay > 0 {
		fmt.Fprintf(w, "                 %d groups to replay (%d-%d), up to revision %d\n", rep.Replay, wal.Applied+1, wal.Last, rep.ReplayLast)
	} else {
		fmt.Fprintln(w, "                 nothing to replay")
	}
	switch {
	case wal.Acked > 0 && wal.AckedNext > 1:
		fmt.Fprintf(w, "                 high-water mark: group %d, revisions up to %d acknowledged\n", wal.Acked, wal.AckedNext-1)
	case wal.Acked > 0:
		fmt.Fprintf(w, "                 high-water mark: group %d, no revisions yet\n", wal.Acked)
	}
}

// plural is "1 problem", "2 problems".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
