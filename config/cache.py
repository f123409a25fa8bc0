"""The cache backends: Redis keeping its redis-py clients, and both Redis and local memory
counting rate-limit windows (hit_window).

Django's Redis backend makes a new redis-py client for every cache call (its connections
come from a shared pool, but building the client, with its table of reply handlers, costs
about 0.1 ms); a list request makes two to four calls (rate limit, cache of public reads).
Each thread has its own cache backend (Django keeps them per thread), so one client per
server is kept in it.

A hit window can read other keys with the hit (`reading`): a public read counts its rate
limit and looks up its cached response in one round trip (listings.middleware).
"""

import pickle
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache, RedisCacheClient

# A sliding window of hits, as a sorted set scored by time: forget the hits that left the
# window, then count one more unless the window is full; and read the other keys given.
# Atomic: Redis runs a script alone. Returns [1 if counted, hits in the window, time of the
# oldest hit when full, [values of the other keys]].
_HIT_WINDOW = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1] - ARGV[2])
local count = redis.call('ZCARD', KEYS[1])
local values = {}
if #KEYS > 1 then
  values = redis.call('MGET', unpack(KEYS, 2))
end
if count >= tonumber(ARGV[3]) then
  return {0, count, redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2], values}
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('PEXPIRE', KEYS[1], math.ceil(ARGV[2] * 1000))
return {1, count + 1, false, values}
"""


@dataclass(frozen=True, slots=True)
class WindowHit:
    """What counting a hit in a sliding window found."""

    allowed: bool
    # Hits in the window, this one included when it was allowed.
    count: int
    # When the oldest hit in the window was (a timestamp), when the window was full.
    oldest: float | None
    # The keys read with the hit (`reading`) that the cache holds, and their values.
    values: dict = field(default_factory=dict)


class KeptClientRedisCacheClient(RedisCacheClient):
    """Django's Redis cache client with one redis-py client per connection pool."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(pool)
        if client is None:
            client = self._clients.setdefault(pool, self._client(connection_pool=pool))
        return client


class KeptClientRedisCache(RedisCache):
    """Django's Redis cache backend, with KeptClientRedisCacheClient and hit_window."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = KeptClientRedisCacheClient
        self._hit_window_scripts = {}

    def hit_window(
        self,
        key: str,
        *,
        now: float,
        seconds: float,
        limit: int,
        reading: Sequence[str] = (),
    ) -> WindowHit:
        """Count a hit at `now` under `key` unless `limit` hits happened in the `seconds`
        before it, and read the keys `reading`: one round trip, and no pickled history read
        and written back (the rate limits, config.api.throttling)."""
        window = self.make_and_validate_key(key)
        stored = [self.make_and_validate_key(name) for name in reading]
        client = self._cache.get_client(window, write=True)
        script = self._hit_window_scripts.get(client)
        if script is None:
            script = self._hit_window_scripts.setdefault(
                client, client.register_script(_HIT_WINDOW)
            )
        # Each hit is its own member of the set, even two at the same time.
        member = f"{now!r}:{secrets.token_hex(4)}"
        allowed, count, oldest, found = script(
            keys=[window, *stored], args=[now, seconds, limit, member]
        )
        loads = self._cache._serializer.loads
        pairs = zip(reading, found, strict=True)
        values = {name: loads(value) for name, value in pairs if value is not None}
        return WindowHit(bool(allowed), int(count), float(oldest) if oldest else None, values)


class WindowLocMemCache(LocMemCache):
    """Django's local-memory cache, counting hit windows as KeptClientRedisCache does: the
    same rate limits and the same reads in development and tests as in production."""

    def hit_window(
        self,
        key: str,
        *,
        now: float,
        seconds: float,
        limit: int,
        reading: Sequence[str] = (),
    ) -> WindowHit:
        """KeptClientRedisCache.hit_window, the window's hits a list of times kept under the
        cache's own lock."""
        window = self.make_and_validate_key(key)
        with self._lock:
            # What the cache itself pickled (LocMemCache keeps every value so).
            stored = None if self._has_expired(window) else self._cache[window]
            hits = [] if stored is None else pickle.loads(stored)  # noqa: S301
            hits = [hit for hit in hits if hit > now - seconds]
            if len(hits) >= limit:
                counted = (False, len(hits), min(hits))
            else:
                hits.append(now)
                self._set(window, pickle.dumps(hits, self.pickle_protocol), seconds)
                counted = (True, len(hits), None)
        return WindowHit(*counted, self.get_many(reading) if reading else {})
