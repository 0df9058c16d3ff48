"""Each token's bucket: never more calls let through than the burst and the rate allow, and a
call refused is told when one is refilled."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from analytics.api.caller import Bucket


@given(
    rate=st.floats(0.1, 50),
    burst=st.integers(1, 30),
    gaps=st.lists(st.floats(0, 2), min_size=1, max_size=200),
)
def test_a_bucket_lets_through_at_most_its_burst_and_its_rate(rate, burst, gaps):
    bucket = Bucket(rate, burst)
    start = now = bucket.at
    allowed = 0
    for gap in gaps:
        now += gap
        wait = bucket.wait(now)
        if wait == 0:
            allowed += 1
        else:
            assert 0 < wait <= 1 / rate + 1e-9
        assert allowed <= burst + (now - start) * rate + 1e-9


def test_a_full_bucket_lets_its_burst_through_at_once_then_refuses():
    bucket = Bucket(rate=1, burst=3)
    now = bucket.at
    assert [bucket.wait(now) for _ in range(4)] == [0, 0, 0, 1]
    assert bucket.wait(now + 1) == 0
