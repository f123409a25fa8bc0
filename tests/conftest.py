"""Fixtures shared by the whole suite."""

import pytest
from django.db import connection
from rest_framework.throttling import SimpleRateThrottle


def pytest_collection_modifyitems(config, items):
    """Tests marked postgres_only run in the PostgreSQL leg of CI, and only there."""
    if connection.vendor == "postgresql":
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL; covered by the PostgreSQL leg of .ci/run")
    for item in items:
        if "postgres_only" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def throttle_rates(monkeypatch):
    """Set some throttle rates (scope=rate) for one test; the others keep their values.

    DRF reads the rates into SimpleRateThrottle.THROTTLE_RATES when it is imported, so the
    class attribute is patched (and restored by monkeypatch) rather than the settings.
    """

    def set_rates(**rates: str) -> None:
        """Override the rates of the named scopes."""
        monkeypatch.setattr(
            SimpleRateThrottle, "THROTTLE_RATES", {**SimpleRateThrottle.THROTTLE_RATES, **rates}
        )

    return set_rates
