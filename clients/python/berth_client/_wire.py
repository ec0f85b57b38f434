"""A minimal protobuf wire decoder for google.rpc.Status and ErrorInfo.

Berth reports a compacted watch position as OUT_OF_RANGE with a
google.rpc.ErrorInfo in the status details (trailer grpc-status-details-bin).
Decoding it by hand spares a dependency on googleapis-common-protos, which not
every distribution packages next to grpcio.
"""

from typing import Dict, Iterator, Optional, Tuple


def _varint(buf: bytes, i: int) -> Tuple[int, int]:
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, i
        shift += 7


def _fields(buf: bytes) -> Iterator[Tuple[int, int, object]]:
    """Yields (field number, wire type, value) of a message."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(buf, i)
        elif wt == 2:
            n, i = _varint(buf, i)
            v, i = buf[i:i + n], i + n
        elif wt == 1:
            v, i = buf[i:i + 8], i + 8
        elif wt == 5:
            v, i = buf[i:i + 4], i + 4
        else:
            raise ValueError("unsupported wire type %d" % wt)
        yield num, wt, v


def error_info(status_details: bytes) -> Optional[Tuple[str, Dict[str, str]]]:
    """Returns (reason, metadata) of the first ErrorInfo in a Status, or None."""
    try:
        for num, wt, any_msg in _fields(status_details):
            if num != 3 or wt != 2:
                continue
            type_url, value = "", b""
            for anum, _, av in _fields(any_msg):
                if anum == 1:
                    type_url = bytes(av).decode()
                elif anum == 2:
                    value = bytes(av)
            if not type_url.endswith("/google.rpc.ErrorInfo"):
                continue
            reason, metadata = "", {}
            for inum, _, iv in _fields(value):
                if inum == 1:
                    reason = bytes(iv).decode()
                elif inum == 3:
                    entry = {n: bytes(v).decode() for n, _, v in _fields(bytes(iv))}
                    metadata[entry.get(1, "")] = entry.get(2, "")
            return reason, metadata
    except (IndexError, ValueError, UnicodeDecodeError):
        return None
    return None
