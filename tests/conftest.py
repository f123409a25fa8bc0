"""Fixtures shared by the whole suite."""

import os
import uuid

import pytest
from django.core.cache import caches
from django.core.files.uploadhandler import MemoryFileUploadHandler, TemporaryFileUploadHandler
from django.db import connection
from rest_framework.throttling import SimpleRateThrottle

# The users of each role, their signed-in clients and the emptied cache, for every test.
pytest_plugins = ["tests.fixtures"]


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


@pytest.fixture
def spooled(monkeypatch) -> list[int]:
    """How far into each file part the handlers that keep uploads (memory, temporary file)
    were given bytes: one entry per chunk, `start + len(chunk)`.

    Its largest value is the most of any file that was ever held in memory or spooled to
    disk, so a test can show that an oversize file was stopped at its limit while streaming.
    """
    received: list[int] = []
    for handler_class in (MemoryFileUploadHandler, TemporaryFileUploadHandler):

        def recording(self, raw_data, start, original=handler_class.receive_data_chunk):
            received.append(start + len(raw_data))
            return original(self, raw_data, start)

        monkeypatch.setattr(handler_class, "receive_data_chunk", recording)
    return received


# The machine's Redis server (docs/reliability.md); tests use keys of their own under it.
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/10")


@pytest.fixture
def redis_cache(settings):
    """The default cache on the machine's Redis server, as in production (django-redis),
    under a key prefix of this test's own, cleared after it."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": f"test-{uuid.uuid4().hex}",
        }
    }
    yield caches["default"]
    caches["default"].clear()
