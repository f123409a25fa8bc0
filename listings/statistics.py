"""Owner statistics: how each listing did over the last 30 days.

Three figures per listing and day, shown to its owner and admins (the owner's dashboard,
GET /properties/:id/stats):

- views of its public page, by people other than its owner and admins, bots left out;
- times it was saved as a favorite (the favorites made that day and still kept);
- visit requests made that day, with their statuses now (the visits' outcomes).

Favorites and visits are read from their own tables, one aggregate query each. Views are
not: a listing page writes nothing to the database per view. They are counted first

- in Redis when REDIS_URL is set: HINCRBY of the field `<listing id>:<day>` in the hash
  `<prefix>pending`, shared by every web process. The first view after the last flush
  (a marker key that lives STATISTICS_FLUSH_SECONDS, set with SET NX in the same MULTI as
  the increment) queues the `views_flush` task to run once the marker has expired, so
  every view is followed by a flush that reads it;
- else in the web process's memory, written by the view that makes
  STATISTICS_FLUSH_VIEWS views pending or that comes STATISTICS_FLUSH_SECONDS after the
  oldest pending one, in one statement. A process that ends loses what it had not
  written (at most that many views or seconds of them).

and then added to PropertyDailyViews in batches (`property_views_flush`). A Redis flush
first renames the pending hash to a batch of its own (`<prefix>batch:<id>`, its id added
to the set `<prefix>batches` in the same MULTI): RENAME is atomic, so an increment lands
either in the batch or in the new pending hash, never in between, and none is lost. The
batch is then added in one transaction that also writes its id (PropertyViewsBatch), and
only after that commits is it deleted from Redis. If the database write fails, the batch
stays in Redis and the next flush adds it; if Redis could not be told after the commit,
the next flush finds the batch's id in the database and only deletes it: a batch is added
once, however often a flush runs again or how many run at once.
"""

import datetime
import functools
import logging
import re
import threading
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import redis
from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import Count
from django.db.models.functions import TruncDate
from django.tasks import task
from django.utils import timezone

from accounts.models import User, UserType
from appointments.models import Appointment, AppointmentStatus
from config.ids import new_id
from favorites.models import Favorite
from listings.models import Property, PropertyDailyViews, PropertyViewsBatch

logger = logging.getLogger("listings.statistics")

# The window of the statistics: today and the 29 days before it, in TIME_ZONE.
WINDOW_DAYS = 30

# User-Agents of programs, not people: search engines' crawlers, link previews, audits
# and scripts. Requests without a User-Agent are not counted either.
ROBOT_AGENTS = re.compile(
    r"bot|crawl|spider|slurp|archiver|preview|facebookexternalhit|embedly|headless"
    r"|lighthouse|pagespeed|curl|wget|python|httpx|java/|go-http|okhttp|node-fetch|axios",
    re.IGNORECASE,
)

# Rows of one INSERT and ids of one lookup: well inside SQLite's limit on parameters.
ROWS_PER_STATEMENT = 500

# A batch's id is kept in the database this long after it was added, for flushes that
# run again.
BATCH_MEMORY = datetime.timedelta(days=1)


# --- Counting views ----------------------------------------------------------------------


def view_counts(*, property: Property, viewer: User, user_agent: str) -> bool:
    """Whether a view of a listing's page counts: a person's (not a robot's User-Agent),
    not the listing's owner's nor an admin's."""
    if not user_agent or ROBOT_AGENTS.search(user_agent):
        return False
    if not viewer.is_authenticated:
        return True
    return viewer.user_type != UserType.ADMIN and viewer.pk != property.owner.user_id


def property_view_count(*, property: Property, viewer: User, user_agent: str) -> None:
    """Count one view of a listing's public page (when it counts: view_counts), without
    writing to the database: in Redis, or in this process's memory (module docstring)."""
    if not view_counts(property=property, viewer=viewer, user_agent=user_agent):
        return
    field = f"{property.pk}:{timezone.localdate().isoformat()}"
    if settings.REDIS_URL:
        _redis_count(field)
    else:
        _memory_count(field)


@dataclass(frozen=True)
class RedisKeys:
    """The Redis keys of the view counters, under STATISTICS_KEY_PREFIX."""

    prefix: str

    @property
    def pending(self) -> str:
        return f"{self.prefix}pending"

    @property
    def scheduled(self) -> str:
        return f"{self.prefix}scheduled"

    @property
    def batches(self) -> str:
        return f"{self.prefix}batches"

    def batch(self, batch_id: str) -> str:
        return f"{self.prefix}batch:{batch_id}"


def redis_keys() -> RedisKeys:
    return RedisKeys(settings.STATISTICS_KEY_PREFIX)


@functools.cache
def _client(url: str) -> redis.Redis:
    """One client (and connection pool) per process and URL."""
    return redis.Redis.from_url(url)


def redis_client() -> redis.Redis:
    """The client of the view counters' Redis (REDIS_URL)."""
    return _client(settings.REDIS_URL)


def _redis_count(field: str) -> None:
    keys = redis_keys()
    client = redis_client()
    delay = settings.STATISTICS_FLUSH_SECONDS
    try:
        with client.pipeline(transaction=True) as pipe:
            pipe.hincrby(keys.pending, field, 1)
            pipe.set(keys.scheduled, "1", nx=True, ex=delay)
            _count, first = pipe.execute()
    except redis.RedisError:
        # A page is worth more than a view counted: show it.
        logger.warning("a listing view was not counted: Redis did not answer", exc_info=True)
        return
    if first:
        # Once the marker has expired (a second's margin for clocks), so that the flush
        # reads every view that found the marker set.
        run_after = timezone.now() + datetime.timedelta(seconds=delay + 1)
        try:
            views_flush_enqueue(run_after=run_after)
        except DatabaseError:
            # The next view queues it instead; the views counted wait in Redis meanwhile.
            client.delete(keys.scheduled)
            logger.warning("the views' flush could not be queued", exc_info=True)


class MemoryViews:
    """Views counted in this process's memory (no REDIS_URL), taken out in batches."""

    def __init__(self):
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()
        self._since: float | None = None

    def add(self, field: str) -> Counter[str] | None:
        """Count a view; returns the batch to write when it is time (and forgets it)."""
        now = time.monotonic()
        with self._lock:
            self._counts[field] += 1
            if self._since is None:
                self._since = now
            full = self._counts.total() >= settings.STATISTICS_FLUSH_VIEWS
            if not full and now - self._since < settings.STATISTICS_FLUSH_SECONDS:
                return None
            return self._take()

    def take(self) -> Counter[str]:
        """Every pending view, forgotten here."""
        with self._lock:
            return self._take()

    def _take(self) -> Counter[str]:
        batch, self._counts, self._since = self._counts, Counter(), None
        return batch

    def put_back(self, batch: Counter[str]) -> None:
        """Pending again: a batch whose write failed."""
        with self._lock:
            self._counts.update(batch)
            if self._since is None:
                self._since = time.monotonic()

    def pending(self) -> int:
        with self._lock:
            return self._counts.total()


MEMORY_VIEWS = MemoryViews()


def _memory_count(field: str) -> None:
    batch = MEMORY_VIEWS.add(field)
    if batch:
        _memory_write(batch)


def _memory_write(batch: Counter[str]) -> int:
    try:
        with transaction.atomic():
            return _views_add(batch)
    except DatabaseError:
        MEMORY_VIEWS.put_back(batch)
        logger.warning("listing views kept in memory for a later write", exc_info=True)
        return 0


# --- Flushing views into the database ---------------------------------------------------


def views_flush_enqueue(*, run_after: datetime.datetime) -> None:
    """Queue the views' flush to run at `run_after` (now, on a backend that cannot defer)."""
    backend = views_flush.get_backend()
    flush = views_flush.using(run_after=run_after) if backend.supports_defer else views_flush
    flush.enqueue()


@task()
def views_flush() -> int:
    """Add the views counted in Redis to the daily table; returns how many were added."""
    return property_views_flush()


def property_views_flush() -> int:
    """Add the views counted so far to PropertyDailyViews; returns how many were added.

    With Redis: the pending views and every batch an earlier flush left, each once (module
    docstring). Without: this process's pending views.
    """
    if not settings.REDIS_URL:
        batch = MEMORY_VIEWS.take()
        return _memory_write(batch) if batch else 0
    keys = redis_keys()
    client = redis_client()
    batch_id = new_id()
    with client.pipeline(transaction=True) as pipe:
        pipe.rename(keys.pending, keys.batch(batch_id))
        pipe.sadd(keys.batches, batch_id)
        # RENAME refuses a missing key (no view since the last flush): an empty batch.
        pipe.execute(raise_on_error=False)
    added = 0
    for member in sorted(client.smembers(keys.batches)):
        added += _batch_add(client, keys, member.decode())
    PropertyViewsBatch.objects.filter(created_at__lt=timezone.now() - BATCH_MEMORY).delete()
    return added


def _batch_add(client: redis.Redis, keys: RedisKeys, batch_id: str) -> int:
    """Add one batch of Redis to the database once, then delete it from Redis."""
    stored = client.hgetall(keys.batch(batch_id))
    counts = Counter({field.decode(): int(value) for field, value in stored.items()})
    added = 0
    if counts:
        try:
            with transaction.atomic():
                # First: a second flush adding the same batch waits here for this one's
                # commit, then fails on the key.
                PropertyViewsBatch.objects.create(id=batch_id)
                added = _views_add(counts)
        except IntegrityError:
            if not PropertyViewsBatch.objects.filter(pk=batch_id).exists():
                raise
            # Added by an earlier or concurrent flush: only Redis is left to tell.
    with client.pipeline(transaction=True) as pipe:
        pipe.delete(keys.batch(batch_id))
        pipe.srem(keys.batches, batch_id)
        pipe.execute()
    return added


def _views_upsert(rows: int) -> str:
    """INSERT of `rows` days' views (id, listing, day, views), adding to existing days."""
    table = PropertyDailyViews._meta.db_table
    values = ", ".join(["(%s, %s, %s, %s)"] * rows)
    return (
        f"INSERT INTO {table} (id, property_id, day, views) VALUES {values}"  # noqa: S608
        f" ON CONFLICT (property_id, day) DO UPDATE SET views = {table}.views + excluded.views"
    )


def _views_add(counts: Counter[str]) -> int:
    """Add views counted by `<listing id>:<day>` to the daily table, in the caller's
    transaction, leaving out listings deleted since; returns how many views were added."""
    by_key: dict[tuple[str, str], int] = {}
    for field, views in counts.items():
        property_id, _, day = field.rpartition(":")
        by_key[property_id, day] = views
    listing_ids = sorted({property_id for property_id, _day in by_key})
    existing = set()
    for start in range(0, len(listing_ids), ROWS_PER_STATEMENT):
        chunk = listing_ids[start : start + ROWS_PER_STATEMENT]
        existing.update(Property.objects.filter(pk__in=chunk).values_list("pk", flat=True))
    rows = [(key, views) for key, views in sorted(by_key.items()) if key[0] in existing]
    with connection.cursor() as cursor:
        for start in range(0, len(rows), ROWS_PER_STATEMENT):
            chunk = rows[start : start + ROWS_PER_STATEMENT]
            params = [
                value
                for (property_id, day), views in chunk
                for value in (new_id(), property_id, day, views)
            ]
            # One statement adds to the day's row or makes it, atomically, whoever else
            # adds to it at the same time.
            cursor.execute(_views_upsert(len(chunk)), params)
    return sum(views for _key, views in rows)


# --- Reading the statistics -------------------------------------------------------------


@dataclass(frozen=True)
class DayFigures:
    """One day of a listing's statistics."""

    day: datetime.date
    views: int
    favorites: int
    visit_requests: int


@dataclass(frozen=True)
class ListingStatistics:
    """A listing's figures over the window, in all and day by day (oldest first)."""

    property_id: str
    first_day: datetime.date
    last_day: datetime.date
    views: int
    favorites: int
    visit_requests: int
    visit_outcomes: dict[str, int]
    days: list[DayFigures]

    @property
    def busiest_day(self) -> DayFigures:
        """The day of the most views (the latest of equals)."""
        return max(reversed(self.days), key=lambda figures: figures.views)


def statistics_window(*, today: datetime.date | None = None) -> tuple[datetime.date, datetime.date]:
    """The first and last day of the statistics: the WINDOW_DAYS days ending today."""
    last_day = today or timezone.localdate()
    return last_day - datetime.timedelta(days=WINDOW_DAYS - 1), last_day


def _day_start(day: datetime.date) -> datetime.datetime:
    return timezone.make_aware(datetime.datetime.combine(day, datetime.time.min))


def property_statistics(
    *, property_ids: Iterable[str], today: datetime.date | None = None
) -> dict[str, ListingStatistics]:
    """The statistics of each listing named, over the window ending `today` (in TIME_ZONE):
    three queries whatever the number of listings. Access is the caller's to decide."""
    property_ids = list(dict.fromkeys(property_ids))
    first_day, last_day = statistics_window(today=today)
    created = {
        "property_id__in": property_ids,
        "created_at__gte": _day_start(first_day),
        "created_at__lt": _day_start(last_day + datetime.timedelta(days=1)),
    }
    views: Counter[tuple[str, datetime.date]] = Counter()
    for property_id, day, count in PropertyDailyViews.objects.filter(
        property_id__in=property_ids, day__gte=first_day, day__lte=last_day
    ).values_list("property_id", "day", "views"):
        views[property_id, day] += count
    favorites: Counter[tuple[str, datetime.date]] = Counter()
    for row in (
        Favorite.objects.filter(**created)
        .annotate(day=TruncDate("created_at"))
        .values("property_id", "day")
        .annotate(count=Count("id"))
        .order_by()
    ):
        favorites[row["property_id"], row["day"]] += row["count"]
    visits: Counter[tuple[str, datetime.date]] = Counter()
    outcomes: dict[str, Counter[str]] = {property_id: Counter() for property_id in property_ids}
    for row in (
        Appointment.objects.filter(**created)
        .annotate(day=TruncDate("created_at"))
        .values("property_id", "day", "status")
        .annotate(count=Count("id"))
        .order_by()
    ):
        visits[row["property_id"], row["day"]] += row["count"]
        outcomes[row["property_id"]][row["status"]] += row["count"]
    days = [first_day + datetime.timedelta(days=offset) for offset in range(WINDOW_DAYS)]
    statistics = {}
    for property_id in property_ids:
        figures = [
            DayFigures(
                day=day,
                views=views[property_id, day],
                favorites=favorites[property_id, day],
                visit_requests=visits[property_id, day],
            )
            for day in days
        ]
        statistics[property_id] = ListingStatistics(
            property_id=property_id,
            first_day=first_day,
            last_day=last_day,
            views=sum(day.views for day in figures),
            favorites=sum(day.favorites for day in figures),
            visit_requests=sum(day.visit_requests for day in figures),
            visit_outcomes={
                status: outcomes[property_id][status] for status in AppointmentStatus.values
            },
            days=figures,
        )
    return statistics
