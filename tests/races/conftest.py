"""Fixtures of the race tests: rates no racer reaches.

The users come from tests/fixtures.py, which also empties the cache around every test.
"""

import pytest


@pytest.fixture(autouse=True)
def race_ready(throttle_rates):
    """Rates well beyond the racers' number."""
    throttle_rates(anonymous="1000/min", signed_in="1000/min")
