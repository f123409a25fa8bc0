"""How a relevance search finds its window: its newest SEARCH_RANK_WINDOW matches
(listings.search.query.ranked_window), by the cheapest of three paths.

- Walking the date index, testing each listing's search document, reads window x table /
  matches listings from the table (a common word's matches lie close together along it).
- Sorting the matches, found in the text index, reads every match from the table: a
  word's 29,000 matches at 1,000,000 listings are 29,000 pages, one listing each.
- Sorting the matches of a recent slice, the listings created since a date past which
  about SLICE_MARGIN windows of them are expected (their share of the table, spread
  evenly), reads the slice's matches only. The text index holds each listing's creation
  blocks beside its document (migration 0034: for each level from a day to 512 days, the
  block of days its creation day falls in), and the slice is a few blocks of one level
  (InRecentSlice), so PostgreSQL intersects the words' entries with the blocks' inside
  the one index scan and reads from the table only the slice's matches: at 1,000,000
  listings, for about 4,300 to 250,000 matches ("terrace", 9,200 matches, 10.4 ms against
  25.9 ms sorted whole; "premises", 100,000, 10.8 against 22.1 ms walked; "lift malaga",
  9,500, 15.6 against 30.7 ms: docs/performance.md).

The planner's estimate of the matches (close for words: its statistics keep the common
ones) and its figure of the table's size (pg_class.reltuples, read without planning a
statement) weigh the paths. Left to itself, PostgreSQL walks far past the point
where sorting reads less, as it prices the test of a document like a comparison ("balcony
barcelona", 19,000 matches: walked 54,000 listings in 160 ms; sorted, 45 ms).

The slice's date comes from the planner's histogram of creation dates (pg_stats), so
finding it costs one small read and never counts anything. It may be off (the statistics
are as old as the last ANALYZE; a word's matches may gather in older listings), which costs
time, never the answer: the slice holds every listing created since the first day of its
first block (its blocks run to the newest listing's, read by the same statement), so when
it holds a full window of matches those are the newest of all matches, and the window is
exact. A slice holding fewer is set aside and the window found from every match
(listings.search.listing_search tries the paths in turn and keeps the first full window).

Reading those statistics costs a search three small statements (the matches' estimate, the
table's size, the histogram). They change only when PostgreSQL analyzes the table again, so
each process keeps a search's path for a minute (the cache `search_paths`,
config/settings/base.py), under its matches' statement and values: in-process at 1,000,000
listings, over the benchmark's text searches (240 queries in 1,000 requests), a text search
cost 1.3 to 1.8 ms of CPU less (16.90 ms against 18.16, 18.09 against 19.86:
docs/performance.md). A kept path may be a minute older than the statistics, which, as
above, costs time, never the answer.
"""

import hashlib
from dataclasses import dataclass
from datetime import datetime

from django.core.cache import caches
from django.db import connections
from django.db.models import BooleanField, F, Func, QuerySet, Value

from listings.models import Property
from listings.search.counting import estimated_rows, matches_sql
from listings.search.statistics import table_rows

# How many windows of matches a recent slice is cut to hold if they are spread evenly
# over creation dates: the room for them to gather in older listings.
SLICE_MARGIN = 2
# The cost of a text index entry that a slice's scan decodes, for one listing read from the
# table: about 8 ns against 2.5 us (1,000,000 listings). Stepping through the words' and the
# blocks' entries together, the scan decodes most of both ("lift" in a slice of 7,000
# listings: 2.5 ms, then 2,344 listings read; its walk along the date index reads 3,300)
# unless the table holds the listings in creation order, when it steps past the entries
# before the slice (docs/performance.md, "Bulk seeding"): the figure is the worst case's.
INDEX_ENTRY_COST = 0.003
# How much more than the slice its blocks hold, on average: the first block reaches back
# past the slice's date by up to two thirds of the slice (four blocks at most, the finest
# level that holds it: migration 0034).
COVER_REACH = 4 / 3


@dataclass(frozen=True, slots=True)
class WindowPath:
    """How a relevance search's window is found: first by sorting the matches created
    `since` a date, when one is given; then (or else) by sorting every match, if `sorts`,
    or by walking the date index."""

    sorts: bool
    since: datetime | None = None


# The cache (settings.CACHES) that keeps each search's path.
PATHS = "search_paths"


def window_path(matches: QuerySet, *, window: int, slices: bool = True) -> WindowPath:
    """The cheapest path to the newest `window` of `matches` (PostgreSQL), by the rows each
    reads from the table (in listings) at the planner's estimates; `slices`: whether a
    recent slice may be tried first (its reader must know whether its window came full).
    Kept a minute in the process (PATHS)."""
    sql, params = matches_sql(matches)
    searched = repr((matches.db, sql, params, window, slices))
    key = hashlib.blake2b(searched.encode(), digest_size=16).hexdigest()
    path = caches[PATHS].get(key)
    if path is None:
        path = cheapest_path(matches.db, sql, params, window=window, slices=slices)
        caches[PATHS].set(key, path)
    return path


def cheapest_path(
    database: str, sql: str, params: tuple, *, window: int, slices: bool
) -> WindowPath:
    """window_path, read from the planner's statistics of the matches' statement."""
    matched = max(1, estimated_rows(database, sql, params))
    table = max(1, table_rows(database))
    walk = window * table / matched
    whole = matched
    slice_rows = SLICE_MARGIN * window * table / matched
    sliced = INDEX_ENTRY_COST * (matched + slice_rows) + COVER_REACH * SLICE_MARGIN * window
    since = None
    if slices and sliced < min(walk, whole) and slice_rows < table:
        since = created_since(database, share=slice_rows / table)
    return WindowPath(sorts=whole < walk, since=since)


# The newest listing's creation date, read by the statement that reads a slice. The table's
# name is the model's, never a value from a request.
NEWEST_CREATION = f"(SELECT max(created_at) FROM {Property._meta.db_table})"  # noqa: S608


class InRecentSlice(Func):
    """Whether a listing was created in the creation blocks that hold every day from a
    date's to the newest listing's (listing_creation_blocks and listing_creation_cover,
    migration 0034): whether it was created since the first block's first day, the
    condition that the text index answers beside the words. The newest listing is read by
    the same statement, so its snapshot holds no listing created after the last block.
    Written out as SQL, as the index's expression is: built as a lookup on a subquery, it
    cost Python 0.35 ms more a search to compile."""

    output_field = BooleanField()

    def __init__(self, since: datetime):
        super().__init__(F("created_at"), Value(since))

    def as_sql(self, compiler, connection, **extra_context):
        created, since = self.get_source_expressions()
        created_sql, created_params = compiler.compile(created)
        since_sql, since_params = compiler.compile(since)
        sql = (
            f"listing_creation_blocks({created_sql})"
            f" && listing_creation_cover({since_sql}, {NEWEST_CREATION})"
        )
        return sql, (*created_params, *since_params)


def created_since(database: str, *, share: float) -> datetime | None:
    """The creation date after which about `share` of the listings were created, by the
    planner's histogram of creation dates (equal numbers of listings between its bounds,
    spread evenly within a bucket: a bucket is 7 days of 730 at 1,000,000 listings, more
    than a common word's slice), or None without one, or when the share reaches past its
    first bound."""
    with connections[database].cursor() as cursor:
        cursor.execute(
            "SELECT histogram_bounds::text::timestamptz[] FROM pg_stats"
            " WHERE schemaname = current_schema() AND tablename = %s AND attname = %s",
            [Property._meta.db_table, Property._meta.get_field("created_at").column],
        )
        row = cursor.fetchone()
    bounds = row[0] if row else None
    if not bounds or len(bounds) < 2:
        return None
    buckets = len(bounds) - 1
    whole, part = divmod(share * buckets, 1)
    if whole >= buckets:
        return None
    later, earlier = bounds[-1 - int(whole)], bounds[-2 - int(whole)]
    return later - part * (later - earlier)
