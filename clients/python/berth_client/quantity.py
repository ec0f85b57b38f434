"""Kubernetes quantities ("500m", "1.5Gi", "2k", "1e3") and Berth's
canonical integers: cpu in millicores, memory and storage in bytes, anything
else ("pods", "example.com/gpu") as a count. The same rules, and the same
test table (clients/testdata/quantities.json), as the Go and TypeScript
clients."""

import re
from typing import Dict, Mapping, Tuple

INVALID = ("want a number and an optional suffix (n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei "
           "or an exponent such as e3)")
OUT_OF_RANGE = "out of range"
_INT64_MAX = (1 << 63) - 1

_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_NUMBER = re.compile(r"([0-9]*)(?:\.([0-9]*))?(.*)", re.DOTALL)
_EXPONENT = re.compile(r"[eE]([+-]?)([0-9]+)")


class QuantityError(ValueError):
    """A quantity that is not one, or whose value does not fit an int64."""


def parse_quantity(resource: str, quantity: str) -> int:
    """quantity as resource's canonical integer, rounded up away from zero
    as Kubernetes does ("0.1m" of cpu is 1, "0.5" bytes is 1). The number
    needs at least one digit ("", "+" and "." are refused). Raises
    QuantityError."""
    try:
        return _parse(quantity, 1000 if resource == "cpu" else 1)
    except QuantityError as e:
        raise QuantityError('quantity "%s" of %s: %s' % (_json_escape(quantity), resource, e)) from None


def parse_resources(quantities: Mapping[str, str]) -> Dict[str, int]:
    """A resource list (requests, allocatable) parsed with parse_quantity."""
    return {name: parse_quantity(name, q) for name, q in quantities.items()}


def format_quantity(resource: str, value: int) -> str:
    """resource's canonical integer as a quantity that parse_quantity reads
    back: cpu in cores when whole, else millicores ("2", "1500m"); bytes with
    the largest exact binary suffix ("1536Mi"), else decimal ("2k"); counts
    with the largest exact decimal suffix ("110", "2k")."""
    decimal = ("k", "M", "G", "T", "P", "E")
    if resource == "cpu":
        if value % 1000:
            return "%dm" % value
        return _scaled(value // 1000, 1000, decimal)
    if _is_bytes(resource) and value and value % 1024 == 0:
        return _scaled(value, 1024, ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"))
    return _scaled(value, 1000, decimal)


def _scaled(value: int, base: int, suffixes: Tuple[str, ...]) -> str:
    negative, value, suffix = value < 0, abs(value), ""
    for s in suffixes:
        if value == 0 or value % base:
            break
        value, suffix = value // base, s
    return "%s%d%s" % ("-" if negative else "", value, suffix)


def _is_bytes(resource: str) -> bool:
    return resource in ("memory", "ephemeral-storage", "storage") or resource.startswith("hugepages-")


def _json_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def _parse(s: str, scale: int) -> int:
    if s == "":
        raise QuantityError("empty")
    negative = s[0] == "-"
    if s[0] in "+-":
        s = s[1:]
    m = _NUMBER.fullmatch(s)
    whole, frac, suffix = (m.group(1), m.group(2) or "", m.group(3)) if m else ("", "", "")
    if not whole and not frac:
        raise QuantityError(INVALID)
    exp10, exp2 = _suffix_powers(suffix)
    mantissa = int(whole + frac)
    if mantissa == 0:
        return 0
    exp10 -= len(frac)
    digits = len((whole + frac).lstrip("0"))
    if exp10 > 40:  # 10^40 is beyond int64 at any scale
        raise QuantityError(OUT_OF_RANGE)
    if exp2 == 0 and digits + exp10 < -4:  # below 10^-4: the ceiling is 1 at any scale
        return -1 if negative else 1
    num = mantissa * scale << exp2
    den = 1
    if exp10 >= 0:
        num *= 10 ** exp10
    else:
        den = 10 ** -exp10
    q = -(-num // den)  # ceiling
    if q > _INT64_MAX:
        raise QuantityError(OUT_OF_RANGE)
    return -q if negative else q


def _suffix_powers(suffix: str) -> Tuple[int, int]:
    if suffix in _DECIMAL:
        return _DECIMAL[suffix], 0
    if suffix in _BINARY:
        return 0, _BINARY[suffix]
    m = _EXPONENT.fullmatch(suffix)
    if not m:
        raise QuantityError(INVALID)
    # Beyond ±1000 only the sign matters (out of range, or rounded to 1).
    e = min(int(m.group(2)), 1000)
    return (-e if m.group(1) == "-" else e), 0
