"""A shared cache of the public reads of listings: GET /properties and GET /properties/:id.

What anonymous visitors and customers read is the same for all of them (D7: public
listings only, nothing personal in the body), so a response, once rendered, can serve the
next reader of the same URL. Entries are keyed by a *generation*: a random token kept in
the cache. Every write that changes what the public reads (a listing, its record, its
photos or videos, its category, its owner's contact) calls `public_reads_changed()`, which
draws a new token once its transaction commits; entries of older generations are never
read again and expire after PUBLIC_READ_CACHE_SECONDS.

A reader takes the generation before it queries the database. A write committing in
between makes a new generation, so what that reader stores under the old one is never
served: no reader sees a listing older than the last committed write it could have
seen. Owners and administrators (who also see hidden listings) are never served from the
cache. The cache is on only where it is shared by every process (Redis; settings), since
a per-process cache could not be told of another process's writes (docs/performance.md).
"""

import hashlib
import secrets

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.http import HttpResponse

GENERATION_KEY = "listings:public-reads:generation"


def public_reads_enabled() -> bool:
    return settings.PUBLIC_READ_CACHE_SECONDS > 0


def _new_generation() -> None:
    cache.set(GENERATION_KEY, secrets.token_hex(8), timeout=None)


def public_reads_changed() -> None:
    """Make every cached public read stale once the current transaction commits."""
    if public_reads_enabled():
        transaction.on_commit(_new_generation)


def _generation() -> str:
    generation = cache.get(GENERATION_KEY)
    if generation is None:
        # First reader after a flush or an eviction: a token no earlier entry can have.
        cache.add(GENERATION_KEY, secrets.token_hex(8), timeout=None)
        generation = cache.get(GENERATION_KEY)
    return generation


def public_read_key(request) -> str:
    """The cache key of this request's response in the current generation.

    The whole absolute URL is part of it: the body holds absolute photo URLs built from
    the request's scheme and host.
    """
    url = hashlib.sha256(request.build_absolute_uri().encode()).hexdigest()
    return f"listings:public-reads:{_generation()}:{request.accepted_renderer.format}:{url}"


def public_read_get(key: str) -> HttpResponse | None:
    """The stored response of this key, or None."""
    stored = cache.get(key)
    if stored is None:
        return None
    content_type, content = stored
    return HttpResponse(content, content_type=content_type)


def public_read_store(key: str, response: HttpResponse) -> None:
    """Keep a rendered response for the next readers of the same URL."""
    cache.set(
        key,
        (response["Content-Type"], response.content),
        timeout=settings.PUBLIC_READ_CACHE_SECONDS,
    )
