"""A shared cache of what the public reads of listings: search results and listing details.

What anonymous visitors and customers read is the same for all of them (D7: public listings
only, nothing personal), so a result, once read, can serve the next reader who asks the
same. Entries are kept with a *generation*: a random token in the cache. Every write that
changes what the public reads (a listing, its record, its photos or videos, its category,
its owner's contact) calls `public_reads_changed()`, which draws a new token once its
transaction commits; entries of an older generation are never served again, and are
replaced or expire after PUBLIC_READ_CACHE_SECONDS.

A reader takes the generation with its entry, before it queries the database. A write
committing in between makes a new generation, so what that reader keeps under the old one
is never served: no reader sees a listing older than the last committed write it could
have seen. The cache is on only where every process shares it (Redis; settings), since a
per-process cache could not be told of another process's writes.

A read served by a read replica (config.routers) may be behind the primary by up to
DATABASE_REPLICA_MAX_LAG_SECONDS, and so behind the generation it is kept under: such an
entry is kept no longer than that bound. What the cache serves is then behind the
primary by at most the bound twice over (plus the replicas' check interval), where it
would otherwise be for as long as the entry lives.

A hit costs one round trip to the cache (the generation and the entry together); a miss
adds the write of the entry.
"""

import hashlib
import math
import secrets
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, transaction

from config.routers import read_database

GENERATION_KEY = "listings:public-reads:generation"


def public_reads_enabled() -> bool:
    return settings.PUBLIC_READ_CACHE_SECONDS > 0


def _new_generation() -> None:
    cache.set(GENERATION_KEY, secrets.token_hex(8), timeout=None)


def public_reads_changed() -> None:
    """Make every cached public read stale once the current transaction commits."""
    if public_reads_enabled():
        transaction.on_commit(_new_generation)


def _current_generation(stored: str | None) -> str:
    """The generation read with the entry, or, after a flush or an eviction, a fresh one."""
    if stored is not None:
        return stored
    # A token no earlier entry can have; add() keeps the one another reader may have drawn.
    cache.add(GENERATION_KEY, secrets.token_hex(8), timeout=None)
    return cache.get(GENERATION_KEY)


def public_read[Value](what: object, read: Callable[[], Value]) -> Value:
    """What `read()` returns for `what` (any value whose repr names the read: its kind and
    its arguments), kept for the next readers while no write makes it stale; read afresh
    when the cache is off."""
    if not public_reads_enabled():
        return read()
    key = "listings:public-reads:" + hashlib.sha256(repr(what).encode()).hexdigest()
    found = cache.get_many([GENERATION_KEY, key])
    generation = _current_generation(found.get(GENERATION_KEY))
    entry = found.get(key)
    if entry is not None and entry[0] == generation:
        return entry[1]
    value = read()
    timeout = settings.PUBLIC_READ_CACHE_SECONDS
    if read_database() != DEFAULT_DB_ALIAS:
        timeout = min(timeout, math.ceil(settings.DATABASE_REPLICA_MAX_LAG_SECONDS))
    cache.set(key, (generation, value), timeout=timeout)
    return value
