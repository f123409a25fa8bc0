"""Fixtures shared by the whole suite."""

import os
import uuid

import pytest
from django.conf import settings
from django.core.cache import caches
from django.core.files.uploadhandler import MemoryFileUploadHandler, TemporaryFileUploadHandler
from django.db import connection
from django.utils import translation

from config.api.throttling import rate_limiter
from listings.statistics import MEMORY_VIEWS

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


@pytest.fixture(autouse=True)
def no_views_pending():
    """Start and end every test with no listing views waiting in this process's memory
    (listings.statistics), so that no test writes another's views."""
    MEMORY_VIEWS.take()
    yield
    MEMORY_VIEWS.take()


@pytest.fixture(autouse=True)
def default_language():
    """Start every test in the default language (English). A page requested in Spanish leaves
    Spanish active on the test's thread (LocaleMiddleware activates a language per request
    and a server's next request activates its own), which would change the next test's
    reverse() and texts."""
    with translation.override(settings.LANGUAGE_CODE):
        yield


@pytest.fixture
def throttle_rates(settings):
    """Set some throttle rates (scope=rate) for one test; the others keep their values."""

    def set_rates(**rates: str) -> None:
        """Override the rates of the named scopes."""
        framework = settings.REST_FRAMEWORK
        settings.REST_FRAMEWORK = {
            **framework,
            "DEFAULT_THROTTLE_RATES": {**framework["DEFAULT_THROTTLE_RATES"], **rates},
        }

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
RATE_LIMIT_REDIS_URL = os.environ.get("TEST_RATE_LIMIT_REDIS_URL", "redis://127.0.0.1:6379/11")


@pytest.fixture
def redis_cache(settings):
    """The default cache on the machine's Redis server, as in production (django-redis),
    under a key prefix of this test's own, cleared after it."""
    settings.CACHES = {
        **settings.CACHES,
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": f"test-{uuid.uuid4().hex}",
        },
    }
    yield caches["default"]
    caches["default"].clear()


@pytest.fixture
def redis_rate_limits(settings):
    """The rate limits counted on the machine's Redis server, as in production, in a
    database of their own, emptied before and after the test; yields its URL."""
    settings.RATE_LIMIT_STORAGE_URL = RATE_LIMIT_REDIS_URL
    rate_limiter().storage.reset()
    yield RATE_LIMIT_REDIS_URL
    rate_limiter().storage.reset()
