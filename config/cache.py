"""The Redis cache backend, keeping its redis-py clients, and counting rate-limit windows.

Django's backend makes a new redis-py client for every cache call (its connections come
from a shared pool, but building the client, with its table of reply handlers, costs
about 0.1 ms); a list request makes two to four calls (rate limit, cache of public reads).
Each thread has its own cache backend (Django keeps them per thread), so one client per
server is kept in it.
"""

import secrets
from dataclasses import dataclass

from django.core.cache.backends.redis import RedisCache, RedisCacheClient

# A sliding window of hits, as a sorted set scored by time: forget the hits that left the
# window, then count one more unless the window is full. Atomic: Redis runs a script alone.
# Returns [1 if counted, hits in the window, time of the oldest hit when full].
_HIT_WINDOW = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1] - ARGV[2])
local count = redis.call('ZCARD', KEYS[1])
if count >= tonumber(ARGV[3]) then
  return {0, count, redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]}
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('PEXPIRE', KEYS[1], math.ceil(ARGV[2] * 1000))
return {1, count + 1, false}
"""


@dataclass(frozen=True, slots=True)
class WindowHit:
    """What counting a hit in a sliding window found."""

    allowed: bool
    # Hits in the window, this one included when it was allowed.
    count: int
    # When the oldest hit in the window was (a timestamp), when the window was full.
    oldest: float | None


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

    def hit_window(self, key: str, *, now: float, seconds: float, limit: int) -> WindowHit:
        """Count a hit at `now` under `key` unless `limit` hits happened in the `seconds`
        before it: one round trip, and no pickled history read and written back (the rate
        limits, config.api.throttling)."""
        key = self.make_and_validate_key(key)
        client = self._cache.get_client(key, write=True)
        script = self._hit_window_scripts.get(client)
        if script is None:
            script = self._hit_window_scripts.setdefault(
                client, client.register_script(_HIT_WINDOW)
            )
        # Each hit is its own member of the set, even two at the same time.
        member = f"{now!r}:{secrets.token_hex(4)}"
        allowed, count, oldest = script(keys=[key], args=[now, seconds, limit, member])
        return WindowHit(bool(allowed), int(count), float(oldest) if oldest else None)
