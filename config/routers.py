"""Where each query goes when the primary has read replicas (DATABASE_REPLICA_URLS;
docs/deployment.md, "Read replicas").

Every write, every migration and every read goes to the primary ("default"), except the
reads a view declares public with `replica_reads()`: searches, listing pages, places, map
clusters, whose readers are the many and whose data may be a few seconds old. Those go
to a healthy replica (config.replica_health), one per request, unless

- the model says who the reader is, or is the task queue (users and their tokens,
  sessions, permissions, tasks): a signed-out or revoked reader is so at once;
- the reader has just written: ReadYourWritesMiddleware marks a signed-in user whose
  write was answered below 400 in the shared cache (Redis, which every web node reads)
  for DATABASE_REPLICA_STICKY_SECONDS, and that user's reads go to the primary meanwhile;
- no replica is healthy (down, or lagging past DATABASE_REPLICA_MAX_LAG_SECONDS).

The background worker and management commands never enter `replica_reads()`: they read
from the primary.
"""

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS

from config.replica_health import healthy_replica

# Read from the primary whatever the view: who the reader is, and the task queue.
PRIMARY_ONLY_APPS = frozenset({"accounts", "auth", "sessions", "django_tasks_db"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
WRITER_KEY = "replicas:wrote:{user_id}"


@dataclass
class ReplicaReads:
    """A `replica_reads()` block: the database its reads go to, chosen at its first read."""

    database: str | None = None


def _nobody_wrote() -> bool:
    return False


_replica_reads: ContextVar[ReplicaReads | None] = ContextVar("replica_reads", default=None)
# Whether the current request's user has just written; outside requests, nobody has.
_reader_wrote: ContextVar[Callable[[], bool]] = ContextVar("reader_wrote", default=_nobody_wrote)


@contextmanager
def replica_reads() -> Iterator[None]:
    """Within it (a `with` block, or a view it decorates: `@replica_reads()`), reads of
    public data may be served by a replica."""
    token = _replica_reads.set(ReplicaReads())
    try:
        yield
    finally:
        _replica_reads.reset(token)


def read_database() -> str:
    """The database the reads of public data go to here: a healthy replica within
    `replica_reads()` for a reader who has not just written, else the primary."""
    block = _replica_reads.get()
    if block is None or not settings.DATABASE_REPLICAS:
        return DEFAULT_DB_ALIAS
    if block.database is None:
        block.database = (
            DEFAULT_DB_ALIAS if _reader_wrote.get()() else healthy_replica() or DEFAULT_DB_ALIAS
        )
    return block.database


def writer_mark(user) -> None:
    """Send `user`'s reads to the primary for DATABASE_REPLICA_STICKY_SECONDS."""
    if user.is_authenticated:
        key = WRITER_KEY.format(user_id=user.pk)
        cache.set(key, True, timeout=settings.DATABASE_REPLICA_STICKY_SECONDS)


def user_wrote_lately(user) -> bool:
    """Whether `user` had a write answered within DATABASE_REPLICA_STICKY_SECONDS."""
    return user.is_authenticated and cache.get(WRITER_KEY.format(user_id=user.pk)) is not None


class ReplicaRouter:
    """The database router (DATABASE_ROUTERS): the module's rules."""

    def db_for_read(self, model, **hints) -> str:
        if model._meta.app_label in PRIMARY_ONLY_APPS:
            return DEFAULT_DB_ALIAS
        return read_database()

    def db_for_write(self, model, **hints) -> str:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints) -> bool | None:
        # A replica holds the primary's rows: a row read from one may refer to the other's.
        same_data = {DEFAULT_DB_ALIAS, *settings.DATABASE_REPLICAS}
        if obj1._state.db in same_data and obj2._state.db in same_data:
            return True
        return None

    def allow_migrate(self, db, app_label, model_name=None, **hints) -> bool:
        # Replicas receive the primary's schema by replication.
        return db == DEFAULT_DB_ALIAS


class ReadYourWritesMiddleware:
    """Who has just written reads from the primary, on every web node (module docstring).

    The mark is made after the response is built, once the write has committed; the client
    sees the response, and sends its next request, only after that.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not settings.DATABASE_REPLICAS:
            return self.get_response(request)
        # Asked at the first public read, if any (the API authenticates in its view).
        token = _reader_wrote.set(functools.cache(lambda: user_wrote_lately(request.user)))
        try:
            response = self.get_response(request)
        finally:
            _reader_wrote.reset(token)
        if request.method not in SAFE_METHODS and response.status_code < 400:
            writer_mark(request.user)
        return response
