"""Parallel Scan: which segment an item belongs to.

A partition key's encoded bytes hash (BLAKE2b, 64 bits) to a point on a ring
that ``TotalSegments`` cuts into equal arcs; segment ``n`` is the ``n``-th arc.
The hash depends on the partition key only, so every item of a partition lands
in the same segment, every item lands in exactly one segment for a given
``TotalSegments``, and the answer never changes between pages or restarts.
"""

from __future__ import annotations

import hashlib

from tallydb.engine.errors import ValidationException

_RING_BITS = 64

TOTAL_REQUIRED = (
    "The TotalSegments parameter is required but was not present in the request when Segment "
    "parameter is present"
)
SEGMENT_REQUIRED = (
    "The Segment parameter is required but was not present in the request when parameter "
    "TotalSegments is present"
)
SEGMENT_TOO_LARGE = (
    "The Segment parameter is zero-based and must be less than parameter TotalSegments: "
    "Segment: {} is not less than TotalSegments: {}"
)
WRONG_SEGMENT = (
    "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use "
    "ExclusiveStartKey with correct Segment. TotalSegments: {} Segment: {}"
)


def segment_of(hash_key: bytes, total: int) -> int:
    """The segment (0 .. total-1) of the partition whose encoded key is ``hash_key``."""
    point = int.from_bytes(hashlib.blake2b(hash_key, digest_size=8).digest(), "big")
    return (point * total) >> _RING_BITS


def checked_segment(segment: object, total: object) -> tuple[int, int] | None:
    """``(Segment, TotalSegments)`` of a Scan request, or None for a serial scan;
    DynamoDB's messages for a half-given or out-of-range pair. A Segment of 0
    alone is accepted, as DynamoDB does (architect/dynalite's tests)."""
    if segment and total is None:
        raise ValidationException(TOTAL_REQUIRED)
    if total is None:
        return None
    if segment is None:
        raise ValidationException(SEGMENT_REQUIRED)
    assert isinstance(segment, int) and isinstance(total, int)
    if segment >= total:
        raise ValidationException(SEGMENT_TOO_LARGE.format(segment, total))
    return segment, total
