"""Calls over the replicas of a highly available berthd.

One channel per replica: the endpoints given first, the leaders they named
after. Every call goes to the current endpoint. A NOT_LEADER refusal
(UNAVAILABLE with ErrorInfo reason NOT_LEADER) makes the leader it names
current (or the next endpoint when it names none); an UNAVAILABLE failure,
with several endpoints, the next endpoint. Unary calls are retried there;
streams are not: Session and Watcher reopen them, with backoff, and reach the
new current endpoint.
"""

import threading
import time
from typing import Callable, List, Optional, Sequence, Tuple, Union

import grpc

from berth_client._status import error_info

NOT_LEADER = "NOT_LEADER"

# How many NOT_LEADER answers one unary call follows: with the default
# Backoff capped at LEADER_POLL the waits add up to about 26s, more than an
# election with berthd's default lease TTL (10s) takes.
MAX_REDIRECTS = 30

# The longest wait, in seconds, before asking again after a NOT_LEADER
# answer: while an election goes on the replicas are asked at least this
# often, so that a write reaches the new leader soon after it wins.
LEADER_POLL = 1.0


def not_leader(e: BaseException) -> Tuple[bool, str]:
    """Whether e is a replica's NOT_LEADER refusal, and the leader it named
    ("" while no leader is known)."""
    if not isinstance(e, grpc.RpcError) or e.code() != grpc.StatusCode.UNAVAILABLE:
        return False, ""
    info = error_info(e)
    if info is None or info.reason != NOT_LEADER:
        return False, ""
    return True, info.metadata.get("leader", "")


def retry_delay(backoff, e: Optional[BaseException], attempt: int) -> float:
    """The backoff before attempt, capped at LEADER_POLL after a NOT_LEADER answer."""
    d = backoff.delay(attempt)
    return min(d, LEADER_POLL) if e is not None and not_leader(e)[0] else d


def split_endpoints(targets: Union[str, Sequence[str]]) -> List[str]:
    """The endpoints of a comma-separated string or a sequence of them."""
    parts = targets.split(",") if isinstance(targets, str) else [p for t in targets for p in t.split(",")]
    return [p.strip() for p in parts if p.strip()]


_DONE, _REDIRECT, _FAILOVER = range(3)


class _Endpoint:
    def __init__(self, addr: str, channel: grpc.Channel):
        self.addr, self.channel = addr, channel
        self.stubs: dict = {}

    def stub(self, stub_class):
        s = self.stubs.get(stub_class)
        if s is None:
            s = self.stubs[stub_class] = stub_class(self.channel)
        return s


class Router:
    """The endpoints and which one calls go to. dial(addr) makes a channel to
    a leader a replica names; None when the caller brought its own channel."""

    def __init__(self, endpoints: Sequence[Tuple[str, grpc.Channel]], dial: Optional[Callable[[str], grpc.Channel]],
                 backoff, sleep: Callable[[float], None] = time.sleep):
        self._lock = threading.Lock()
        self._eps = [_Endpoint(a, c) for a, c in endpoints]
        self._cur = 0
        self._dial, self._backoff, self._sleep = dial, backoff, sleep

    def current(self) -> Tuple[_Endpoint, bool]:
        with self._lock:
            return self._eps[self._cur], len(self._eps) > 1

    @property
    def target(self) -> str:
        """The address calls go to now."""
        return self.current()[0].addr

    def size(self) -> int:
        with self._lock:
            return len(self._eps)

    def observe(self, ep: _Endpoint, e: BaseException) -> int:
        """Moves the current endpoint after a call to ep failed with e; a
        failure of an endpoint that is no longer current moves nothing."""
        refused, leader = not_leader(e)
        with self._lock:
            if refused and leader and leader != ep.addr and self._use(leader):
                return _REDIRECT
            if refused:
                self._advance(ep)
                return _REDIRECT
            if isinstance(e, grpc.RpcError) and e.code() == grpc.StatusCode.UNAVAILABLE and len(self._eps) > 1:
                self._advance(ep)
                return _FAILOVER
        return _DONE

    def _use(self, addr: str) -> bool:
        for i, ep in enumerate(self._eps):
            if ep.addr == addr:
                self._cur = i
                return True
        if self._dial is None:
            return False
        self._eps.append(_Endpoint(addr, self._dial(addr)))
        self._cur = len(self._eps) - 1
        return True

    def _advance(self, ep: _Endpoint) -> None:
        if self._eps[self._cur] is ep:
            self._cur = (self._cur + 1) % len(self._eps)

    def unary(self, stub_class, name: str, request, kwargs: dict):
        """Calls a unary method, following NOT_LEADER (at once the first
        time, then with backoff) and, with several endpoints, going on to the
        next on UNAVAILABLE. It gives up after MAX_REDIRECTS NOT_LEADER
        answers, or when every endpoint in a row could not be reached (a
        replica answering NOT_LEADER while an election goes on shows the
        group alive). berth.v1's writes are idempotent, so a call that broke
        with the connection may be sent again. A timeout bounds every try
        together."""
        timeout = kwargs.get("timeout")
        deadline = None if timeout is None else time.monotonic() + timeout
        redirects = unreachable = 0
        while True:
            ep, several = self.current()
            if several:
                kwargs = dict(kwargs, wait_for_ready=False)
            if deadline is not None:
                kwargs = dict(kwargs, timeout=max(deadline - time.monotonic(), 0.0))
            try:
                return getattr(ep.stub(stub_class), name)(request, **kwargs)
            except grpc.RpcError as e:
                verdict = self.observe(ep, e)
                if verdict == _REDIRECT:
                    redirects, unreachable = redirects + 1, 0
                    delay = retry_delay(self._backoff, e, redirects - 1)
                    if redirects >= MAX_REDIRECTS or (deadline is not None and time.monotonic() + delay >= deadline):
                        raise
                    self._sleep(delay)
                elif verdict == _FAILOVER:
                    unreachable += 1
                    if unreachable >= self.size():
                        raise
                else:
                    raise

    def stream(self, stub_class, name: str, request, kwargs: dict):
        """Opens a stream on the current endpoint; its failure is observed as
        a unary call's is, and raised to the caller, which reopens it."""
        ep, several = self.current()
        if several:
            kwargs = dict(kwargs, wait_for_ready=False)
        return _ObservedCall(getattr(ep.stub(stub_class), name)(request, **kwargs), self, ep)

    def hop(self, e: Optional[BaseException], hops: int) -> Tuple[bool, int]:
        """Whether a stream that failed with e may be opened again without a
        backoff wait, and the new count of such hops in a row: with several
        endpoints, one could not be reached (UNAVAILABLE, not NOT_LEADER) and
        the router moved on, fewer times in a row than there are endpoints.
        A replica that is down then costs no wait while the others elect; a
        whole round unreachable backs off as one failure."""
        refused, _ = not_leader(e) if e is not None else (False, "")
        if refused or not isinstance(e, grpc.RpcError) or e.code() != grpc.StatusCode.UNAVAILABLE:
            return False, 0
        hops += 1
        if hops >= self.size():
            return False, 0
        return True, hops

    def close(self) -> None:
        with self._lock:
            for ep in self._eps:
                ep.channel.close()


class _ObservedCall:
    """A streaming call whose failure its Router observes; otherwise the call."""

    def __init__(self, call, router: Router, ep: _Endpoint):
        self._call, self._router, self._ep = call, router, ep

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return next(self._call)
        except grpc.RpcError as e:
            self._router.observe(self._ep, e)
            raise

    def __getattr__(self, name):
        return getattr(self._call, name)


class RoutedStub:
    """A generated stub's methods, each sent through a Router: Sync and Watch
    (streams) open on the current endpoint, the others are unary calls."""

    _STREAMS = frozenset({"Sync", "Watch"})

    def __init__(self, router: Router, stub_class):
        self._router, self._stub_class = router, stub_class

    def __getattr__(self, name: str):
        router, stub_class = self._router, self._stub_class
        if name in self._STREAMS:
            return lambda request, **kwargs: router.stream(stub_class, name, request, kwargs)
        return lambda request, **kwargs: router.unary(stub_class, name, request, kwargs)
