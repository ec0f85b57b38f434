#!/usr/bin/env python3
"""Count goroutine hand-offs per pod in an execution trace of `berthctl bench`.

A hand-off is one goroutine making another runnable: a channel send or
close, a sync.Cond or mutex wake-up, a `go` statement, or the network poller
finding a socket ready. Each is a goroutine switch, and when the woken
goroutine is on another thread, a futex wake-up and a context switch: the
count does not depend on how busy the machine is.

    berthctl bench --workload basic --nodes 500 --pods 5000 --rate 1000 --trace /tmp/t.out
    go tool trace -d=parsed /tmp/t.out | python3 bench/handoffs.py --pods 5000

Each hand-off is named by the first frame of the waker's stack outside the
runtime, sync, the standard library's plumbing and gRPC's buffers (the
berthd or client function that caused it); "netpoll" is the poller. The
trace covers berthd (in process) and the client, the cluster's loading
included; with 500 nodes that share is small.
"""
import argparse
import collections
import re
import sys

SKIP = re.compile(
    r"^(runtime\.|sync\.|sync/atomic\.|internal/|context\.|time\.|os\.|io\.|net\.|bufio\.|"
    r"google\.golang\.org/grpc/internal/transport\.\(\*(controlBuffer|recvBuffer|recvBufferReader|writeQuota)\)|"
    r"google\.golang\.org/grpc/internal/transport\.\(\*(loopyWriter)\)\.(processData|handle)|"
    r"google\.golang\.org/grpc/internal/grpcsync)")
TRANSITION = re.compile(r"StateTransition .*GoID=(\d+) (\w+)->(\w+)")
FRAME = re.compile(r"^\t(\S+) @ 0x")


def site(frames):
    for f in frames:
        if not SKIP.match(f):
            return f
    return frames[0] if frames else "netpoll (no stack)"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pods", type=int, required=True, help="pending pods of the run")
    ap.add_argument("--top", type=int, default=25)
    a = ap.parse_args()
    counts = collections.Counter()
    cur, frames = None, []

    def flush():
        if cur is not None:
            kind, _ = cur
            counts[(kind, site(frames))] += 1

    for line in sys.stdin:
        if line.startswith("Stack="):
            continue
        if not line.startswith("\t"):
            flush()
            cur, frames = None, []
            m = TRANSITION.search(line)
            if m and m.group(3) == "Runnable" and m.group(2) in ("Waiting", "NotExist"):
                cur = ("go" if m.group(2) == "NotExist" else "wake", m.group(1))
            continue
        f = FRAME.match(line)
        if f and cur is not None:
            frames.append(f.group(1))
    flush()
    total = sum(counts.values())
    print("%.2f hand-offs per pod (%d over %d pods): wake-ups and goroutines started, by the waker's frame" % (
        total / a.pods, total, a.pods))
    for (kind, s), n in counts.most_common(a.top):
        print("%7.3f  %-4s %s" % (n / a.pods, kind, s))


if __name__ == "__main__":
    main()
