"""A shared cache of the public reads of listings: GET /properties and GET /properties/:id.

What anonymous visitors and customers read is the same for all of them (D7: public
listings only, nothing personal in the body), so a response, once rendered, can serve the
next reader of the same URL. Entries are marked with a *generation*: a random token kept in
the cache. Every write that changes what the public reads (a listing, its record, its
photos or videos, its category, its owner's contact) calls `public_reads_changed()`, which
draws a new token once its transaction commits; entries of older generations are never
served again, and are replaced or expire after PUBLIC_READ_CACHE_SECONDS.

A reader takes the generation before it queries the database. A write committing in
between makes a new generation, so what that reader stores under the old one is never
served: no reader sees a listing older than the last committed write it could have
seen. Owners and administrators (who also see hidden listings) are never served from the
cache. The cache is on only where it is shared by every process (Redis; settings), since
a per-process cache could not be told of another process's writes (docs/performance.md).
"""

import hashlib
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.http import HttpResponse

from config.api.pagination import SearchCount

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


@dataclass(frozen=True)
class PublicRead:
    """A public read that was looked up: where its response is kept, the generation it
    read, and, when the door (listings.middleware) found a current entry it could not
    serve itself (one kept without an anonymous visitor's headers), that entry's
    content type and content."""

    key: str
    generation: str
    content: tuple[str, bytes] | None = None


def public_read_key(request, format: str) -> str:
    """Where the response of a public read in `format` (the renderer's) is kept. The whole
    absolute URL is part of the key: the body holds absolute photo URLs built from the
    request's scheme and host."""
    url = hashlib.sha256(request.build_absolute_uri().encode()).hexdigest()
    return f"listings:public-responses:{format}:{url}"


def _current_entry(stored: tuple | None, generation: str) -> tuple | None:
    """A kept entry, if it was kept under the current generation."""
    return stored if stored is not None and stored[0] == generation else None


def public_read_get(request) -> tuple[HttpResponse | None, PublicRead]:
    """The stored response of this request in the current generation (or None), and where
    the response made now is to be kept.

    One round trip reads the generation and the entry together. An entry holds the
    generation it was read under and is served only while that generation is current.
    """
    key = public_read_key(request, request.accepted_renderer.format)
    found = cache.get_many([GENERATION_KEY, key])
    generation = _current_generation(found.get(GENERATION_KEY))
    entry = _current_entry(found.get(key), generation)
    if entry is None:
        return None, PublicRead(key, generation)
    _, content_type, content, _headers = entry
    return HttpResponse(content, content_type=content_type), PublicRead(key, generation)


def public_read_at_door(request, *, window: str, rate) -> HttpResponse | None:
    """An anonymous visitor's public read in JSON, looked up before any view runs
    (listings.middleware): its hit counted in the rate limit's `window` (`rate`: the
    throttle whose window it is) and its entry read, in one round trip.

    The kept response, whole with the headers the platform sent with it, when the hit is
    allowed and an entry of the current generation holds them; otherwise None, and the
    request carries the counted hit (`counted_hits`, which the throttle takes instead of
    counting again) and this lookup (`public_read`, which the view takes instead of
    looking again) on to the view.
    """
    key = public_read_key(request, "json")
    hit = cache.hit_window(
        window,
        now=rate.timer(),
        seconds=rate.duration,
        limit=rate.num_requests,
        reading=[GENERATION_KEY, key],
    )
    generation = _current_generation(hit.values.get(GENERATION_KEY))
    entry = _current_entry(hit.values.get(key), generation)
    if hit.allowed and entry is not None and entry[3] is not None:
        _, _content_type, content, headers = entry
        return HttpResponse(content, headers=dict(headers))
    request.counted_hits = {window: hit}
    content = None if entry is None else (entry[1], entry[2])
    request.public_read = PublicRead(key, generation, content)
    return None


def public_read_store(read: PublicRead, response: HttpResponse, *, whole: bool) -> None:
    """Keep a rendered response for the next readers of the same URL, under the generation
    read before the database was: if a write committed since, it is never served.

    `whole`: with its headers, for the door to serve (the response of an anonymous
    visitor's read, setting no cookie); otherwise the view serves its content alone.
    """
    headers = tuple(response.items()) if whole and not response.cookies else None
    cache.set(
        read.key,
        (read.generation, response["Content-Type"], response.content, headers),
        timeout=settings.PUBLIC_READ_CACHE_SECONDS,
    )


@dataclass(frozen=True)
class PublicCounts:
    """Counts of public searches kept under the generation a public read was read under.

    A search's count does not depend on its page or its order, and a visitor who pages
    through results, or sorts them, asks for the same count again; counting a broad search
    is most of its cost in the database (docs/performance.md). A count is kept by its
    statement (SQL and parameters: exactly what was counted) and, like a kept response,
    is used only while its generation is current, so no write that committed since it was
    read is missed.
    """

    generation: str

    @staticmethod
    def _key(statement: tuple[str, tuple]) -> str:
        digest = hashlib.sha256(repr(statement).encode()).hexdigest()
        return f"listings:public-counts:{digest}"

    def get(self, statement: tuple[str, tuple]) -> SearchCount | None:
        stored = cache.get(self._key(statement))
        if stored is not None and stored[0] == self.generation:
            return SearchCount(*stored[1:])
        return None

    def store(self, statement: tuple[str, tuple], count: SearchCount) -> None:
        # A plain tuple: what is kept must read back whatever the code that reads it.
        cache.set(
            self._key(statement),
            (self.generation, count.total, count.exact, count.table_rows),
            timeout=settings.PUBLIC_READ_CACHE_SECONDS,
        )
