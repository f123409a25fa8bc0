"""How a relevance search finds its window: its newest SEARCH_RANK_WINDOW matches
(listings.search.query.ranked_window), by the cheapest of three paths.

- Walking the date index, testing each listing's search document, reads window x table /
  matches listings from the table (a common word's matches lie close together along it).
- Sorting the matches, found in the text index, reads every match from the table: a
  word's 29,000 matches at 1,000,000 listings are 29,000 pages, one listing each.
- Sorting the matches of a recent slice, the listings created since a date past which
  about SLICE_MARGIN windows of them are expected (their share of the table, spread
  evenly), reads the slice's matches: PostgreSQL intersects the text index's entries with
  the date index's (a BitmapAnd) before it reads the table. Each index entry costs about
  a tenth of a listing read (INDEX_ENTRY_COST), so a slice is cheaper for the words
  between the two others (15,000 to 80,000 matches at 1,000,000 listings): "duplex"
  (29,000 matches) 53 to 76 ms against 110 to 156 ms sorted whole, "pool madrid" (28,000)
  87 to 95 ms against 174 to 196 ms (in-process, on a slow machine: docs/performance.md).

The planner's estimate of the matches (close for words: its statistics keep the common
ones) and its figure of the table's size (pg_class.reltuples, read without planning a
statement) weigh the paths. Left to itself, PostgreSQL walks far past the point
where sorting reads less, as it prices the test of a document like a comparison ("balcony
barcelona", 19,000 matches: walked 54,000 listings in 160 ms; sorted, 45 ms).

The slice's date comes from the planner's histogram of creation dates (pg_stats), so
finding it costs one small read and never counts anything. It may be off (the statistics
are as old as the last ANALYZE; a word's matches may gather in older listings), which costs
time, never the answer: the slice holds every listing created since its date, so when it
holds a full window of matches those are the newest of all matches, and the window is
exact. A slice holding fewer is set aside and the window found from every match
(listings.search.listing_search tries the paths in turn and keeps the first full window).
"""

import math
from dataclasses import dataclass
from datetime import datetime

from django.db import connections
from django.db.models import QuerySet

from listings.models import Property
from listings.search.counting import estimated_count
from listings.search.statistics import table_rows

# How many windows of matches a recent slice is cut to hold if they are spread evenly
# over creation dates: the room for them to gather in older listings.
SLICE_MARGIN = 2
# The cost of an index entry put in a bitmap, for one listing read from the table: 0.4 us
# for the text index's and the date index's against 4 to 7 us a listing (1,000,000
# listings).
INDEX_ENTRY_COST = 0.1


@dataclass(frozen=True, slots=True)
class WindowPath:
    """How a relevance search's window is found: first by sorting the matches created
    `since` a date, when one is given; then (or else) by sorting every match, if `sorts`,
    or by walking the date index."""

    sorts: bool
    since: datetime | None = None


def window_path(matches: QuerySet, *, window: int, slices: bool = True) -> WindowPath:
    """The cheapest path to the newest `window` of `matches` (PostgreSQL), by the rows each
    reads from the table (in listings) at the planner's estimates; `slices`: whether a
    recent slice may be tried first (its reader must know whether its window came full)."""
    matched = max(1, estimated_count(matches))
    table = max(1, table_rows(matches.db))
    walk = window * table / matched
    whole = matched
    slice_rows = SLICE_MARGIN * window * table / matched
    sliced = INDEX_ENTRY_COST * (matched + slice_rows) + SLICE_MARGIN * window
    since = None
    if slices and sliced < min(walk, whole) and slice_rows < table:
        since = created_since(matches.db, share=slice_rows / table)
    return WindowPath(sorts=whole < walk, since=since)


def created_since(database: str, *, share: float) -> datetime | None:
    """The creation date after which about `share` of the listings were created, by the
    planner's histogram of creation dates (equal numbers of listings between its bounds),
    or None without one, or when the share reaches past its first bound."""
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
    newest_buckets = math.ceil(share * buckets)
    if newest_buckets >= buckets:
        return None
    return bounds[-1 - newest_buckets]
