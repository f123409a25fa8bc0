"""The cache backends (config.cache): Redis against the server production uses, and local
memory counting the same hit windows."""

import os
import uuid

import pytest

from config.cache import KeptClientRedisCache, WindowLocMemCache

# The Redis server of the machine (CI has one, as production does); a database of its own.
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/10")


@pytest.fixture
def backend():
    """A backend on the test Redis database, under a key prefix of its own."""
    redis_cache = KeptClientRedisCache(REDIS_URL, {"KEY_PREFIX": f"test-{uuid.uuid4().hex}"})
    yield redis_cache
    redis_cache.delete_many(["word", "missing", "counter", "first"])


def test_values_go_to_redis_and_come_back(backend):
    # when values are written
    backend.set("word", {"title": "Sunny flat", "price": 1250})
    added = backend.add("first", 1)
    added_again = backend.add("first", 2)

    # then they are read back, one by one and together, and add() keeps the first value
    assert backend.get("word") == {"title": "Sunny flat", "price": 1250}
    assert backend.get_many(["word", "missing", "first"]) == {
        "word": {"title": "Sunny flat", "price": 1250},
        "first": 1,
    }
    assert (added, added_again) == (True, False)
    backend.delete("word")
    assert backend.get("word") is None


def test_one_redis_client_serves_every_call(backend):
    # given a first call
    backend.set("counter", 1)
    client = backend._cache.get_client(write=True)

    # when more reads and writes follow
    backend.incr("counter")
    backend.get("counter")

    # then they all went through the same client (Django's own backend makes one per call)
    assert backend._cache.get_client() is client
    assert backend._cache.get_client(write=True) is client
    assert backend.get("counter") == 2


@pytest.fixture(params=["redis", "local memory"])
def windows(request, backend):
    """Each backend that counts hit windows: Redis, and local memory under a name of its own."""
    if request.param == "redis":
        return backend
    return WindowLocMemCache(f"windows-{uuid.uuid4().hex}", {})


def test_a_hit_window_counts_hits_up_to_its_limit_and_forgets_old_ones(windows):
    # given a window of 60 seconds holding 3 hits, two of them at the same moment
    key = f"window-{uuid.uuid4().hex}"
    first = windows.hit_window(key, now=1000.0, seconds=60, limit=3)
    second = windows.hit_window(key, now=1010.0, seconds=60, limit=3)
    third = windows.hit_window(key, now=1010.0, seconds=60, limit=3)

    # when a fourth hit comes within the window, and a fifth once the first has left it
    fourth = windows.hit_window(key, now=1030.0, seconds=60, limit=3)
    fifth = windows.hit_window(key, now=1060.5, seconds=60, limit=3)

    # then the first three are counted, the fourth is refused with the oldest hit's time,
    # and the fifth is counted beside the two still in the window
    assert [(hit.allowed, hit.count) for hit in (first, second, third)] == [
        (True, 1),
        (True, 2),
        (True, 3),
    ]
    assert (fourth.allowed, fourth.count, fourth.oldest) == (False, 3, 1000.0)
    assert (fifth.allowed, fifth.count, fifth.oldest) == (True, 3, None)
    assert [hit.values for hit in (first, fourth, fifth)] == [{}, {}, {}]


def test_a_hit_window_reads_other_keys_with_the_hit(windows):
    # given two stored values
    key = f"window-{uuid.uuid4().hex}"
    windows.set("word", {"title": "Sunny flat"})
    windows.set("counter", 7)

    # when a hit is counted reading them and a missing key, then once the window is full
    counted = windows.hit_window(
        key, now=1000.0, seconds=60, limit=1, reading=["word", "missing", "counter"]
    )
    refused = windows.hit_window(key, now=1001.0, seconds=60, limit=1, reading=["word"])

    # then the values come back with the hit, whether it was counted or not
    assert counted.allowed is True
    assert counted.values == {"word": {"title": "Sunny flat"}, "counter": 7}
    assert (refused.allowed, refused.values) == (False, {"word": {"title": "Sunny flat"}})


def test_a_redis_hit_window_is_a_sorted_set_that_expires_with_the_window(backend):
    # when a hit is counted in a window of 60 seconds
    key = f"window-{uuid.uuid4().hex}"
    backend.hit_window(key, now=1000.0, seconds=60, limit=3)

    # then the window lives in Redis as a sorted set that expires with the window
    client = backend._cache.get_client(write=True)
    stored = backend.make_and_validate_key(key)
    assert client.type(stored) == b"zset"
    assert 0 < client.pttl(stored) <= 60_000
    client.delete(stored)
