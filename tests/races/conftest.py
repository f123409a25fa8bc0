"""Fixtures of the race tests: rates no racer reaches.

The users come from tests/fixtures.py, which also empties the cache around every test.
"""

import pytest
from rest_framework.throttling import SimpleRateThrottle


@pytest.fixture(autouse=True)
def race_ready(monkeypatch):
    """Rates well beyond the racers' number."""
    monkeypatch.setattr(
        SimpleRateThrottle,
        "THROTTLE_RATES",
        {**SimpleRateThrottle.THROTTLE_RATES, "anonymous": "1000/min", "signed_in": "1000/min"},
    )
