"""The Redis cache backend, keeping its redis-py clients.

Django's backend makes a new redis-py client for every cache call (its connections come
from a shared pool, but building the client, with its table of reply handlers, costs
about 0.1 ms); a list request makes two to four calls (rate limit, cache of public reads).
Each thread has its own cache backend (Django keeps them per thread), so one client per
server is kept in it.
"""

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


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
    """Django's Redis cache backend, with KeptClientRedisCacheClient."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = KeptClientRedisCacheClient
