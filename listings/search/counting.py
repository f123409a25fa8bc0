"""How many listings a search matches: exactly up to a limit, then an estimate.

Counting every match of a broad search costs a scan of most of an index (hundreds of
milliseconds at 1,000,000 listings). So a count stops at PROPERTY_LIST_EXACT_COUNT_LIMIT
matches: up to there it is exact; past it, on PostgreSQL, it is the planner's estimate
(never below the limit + 1), as portals show "10,000+ results". A count that takes longer
than PROPERTY_LIST_COUNT_TIMEOUT_MS is given up for the estimate too, so no search waits on
its count. SQLite has no estimate and counts exactly.

A public search whose criteria the trigger-kept groups hold is counted from them
(listings.search.groups): a few hundred rows instead of its matches, exact however large
without a price range. A public search on a map box (with a transaction and a kind at most)
is counted, exactly, from the map cells (listings.search.cells.celled_count). A count that
runs into its timeout is rolled back with its own transaction, so its cancellation never
reaches another statement (rows_within).
"""

from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings
from django.db import OperationalError, connections, transaction
from django.db.models import QuerySet, Value

from listings.search.cells import CelledSearch, celled_count
from listings.search.groups import GroupedSearch, bounds_statement, outside_parts
from listings.search.plans import PLANNED_FOR_ITS_VALUES
from listings.search.statistics import TABLE_ROWS

# SQLSTATE of a statement cancelled by statement_timeout.
QUERY_CANCELED = "57014"


@dataclass(frozen=True, slots=True)
class SearchCount:
    """totalItems of a search, whether it is exact, and the planner's idea of the table's
    size (PostgreSQL, read with the count; the page reader uses it)."""

    total: int
    exact: bool
    table_rows: int | None = None


def matches_sql(listings: QuerySet) -> tuple[str, tuple]:
    """The matches, unordered, selecting a constant per row: PostgreSQL counts them from the
    indexes of the filters alone (an index-only scan)."""
    sql, params = listings.order_by().values(one=Value(1)).query.sql_with_params()
    return sql, tuple(params)


def _count_sql(listings: QuerySet, cap: int | None) -> tuple[str, tuple]:
    """The statement that counts the matches up to `cap` (None: all of them)."""
    sql, params = matches_sql(listings)
    limit = "" if cap is None else f" LIMIT {int(cap)}"
    return f"SELECT COUNT(*) FROM ({sql}{limit}) AS capped", params  # noqa: S608


# Sets the statement timeout for the current transaction and reads the settings it may have
# to put back and the table's estimated size; the select list is evaluated left to right.
_SET_TIMEOUT = (
    "SELECT current_setting('statement_timeout'), current_setting('plan_cache_mode'),"
    f" set_config('statement_timeout', %s, true), {TABLE_ROWS}"
)
# The same, for a statement planned for its values (listings.search.plans).
_SET_TIMEOUT_PLANNED = f"{_SET_TIMEOUT}, {PLANNED_FOR_ITS_VALUES}"
# Puts the settings back inside an outer transaction, which they would outlive a savepoint in.
_PUT_BACK = (
    "SELECT set_config('statement_timeout', %s, true), set_config('plan_cache_mode', %s, true)"
)


def rows_within(
    listings: QuerySet, sql: str, params: Sequence, *, timeout_ms: int, planned: bool = False
) -> tuple[list[tuple] | None, int | None]:
    """The rows of a statement given `timeout_ms` to run (PostgreSQL), or None when it took
    longer and was given up; and the estimated size of the listings table. `planned`: the
    statement is planned for its values, as in listings.search.plans.planned_for_its_values,
    set with its timeout (no round trip of its own).

    The statement runs in a transaction (a savepoint inside an outer one) whose local
    settings end with it; a cancellation rolls it back, so nothing of it reaches the
    connection's next statement. Inside an outer transaction the settings are put back
    afterwards, since they would outlive the savepoint.
    """
    connection = connections[listings.db]
    nested = connection.in_atomic_block
    try:
        with transaction.atomic(using=listings.db), connection.cursor() as cursor:
            cursor.execute(_SET_TIMEOUT_PLANNED if planned else _SET_TIMEOUT, [str(timeout_ms)])
            previous_timeout, previous_plan_mode, _timeout, table_rows, *_ = cursor.fetchone()
            cursor.execute(sql, params)
            rows = cursor.fetchall()
            if nested:
                cursor.execute(_PUT_BACK, [previous_timeout, previous_plan_mode])
            return rows, table_rows
    except OperationalError as error:
        if getattr(error.__cause__, "sqlstate", None) == QUERY_CANCELED:
            return None, None
        raise


def first_row_with_table_rows(listings: QuerySet, sql: str, params: Sequence) -> tuple[tuple, int]:
    """The first row of a statement and the estimated size of the listings table, in one
    round trip (PostgreSQL), for statements that cannot run long."""
    with connections[listings.db].cursor() as cursor:
        cursor.execute(
            f"SELECT *, {TABLE_ROWS} FROM ({sql}) AS statement",  # noqa: S608
            params,
        )
        *row, table_rows = cursor.fetchone()
    return tuple(row), table_rows


@dataclass(frozen=True, slots=True)
class CappedCount:
    """A count stopped at a cap, and the planner's idea of the table's size."""

    # How many rows matched, at most the cap; None when the count was given up.
    matches: int | None
    # pg_class.reltuples of the listings table (PostgreSQL, when counted with a timeout).
    table_rows: int | None = None


def capped_count(listings: QuerySet, cap: int, *, timeout_ms: int = 0) -> CappedCount:
    """How many rows the queryset matches, counting no further than `cap`; with
    `timeout_ms` on PostgreSQL, given up (None) when it takes longer."""
    sql, params = _count_sql(listings, cap)
    if not timeout_ms or connections[listings.db].vendor != "postgresql":
        with connections[listings.db].cursor() as cursor:
            cursor.execute(sql, params)
            return CappedCount(cursor.fetchone()[0])
    rows, table_rows = rows_within(listings, sql, params, timeout_ms=timeout_ms)
    return CappedCount(None if rows is None else rows[0][0], table_rows)


def estimated_count(listings: QuerySet) -> int:
    """PostgreSQL's planner estimate of how many rows the queryset matches."""
    return estimated_rows(listings.db, *matches_sql(listings))


def estimated_rows(database: str, sql: str, params: Sequence) -> int:
    """PostgreSQL's planner estimate of how many rows a statement returns."""
    with connections[database].cursor() as cursor:
        # EXPLAIN's JSON comes back as a json column, which psycopg reads into lists.
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        plan = cursor.fetchone()[0]
    return int(plan[0]["Plan"]["Plan Rows"])


def estimated_search_count(
    listings: QuerySet, *, counted: int | None, table_rows: int | None
) -> SearchCount:
    """The count of a search counted past the limit (`counted`) or given up (None)."""
    estimate = estimated_count(listings)
    limit = settings.PROPERTY_LIST_EXACT_COUNT_LIMIT
    # Past the limit, or given up: an estimate, but never fewer than the rows counted.
    total = max(estimate, limit + 1) if counted is not None else estimate
    return SearchCount(total, False, table_rows)


def counted_matches(listings: QuerySet) -> SearchCount:
    """Count the matches themselves, no further than the limit (PostgreSQL: within the
    count's time); the estimate past it."""
    limit = settings.PROPERTY_LIST_EXACT_COUNT_LIMIT
    counted = capped_count(listings, limit + 1, timeout_ms=settings.PROPERTY_LIST_COUNT_TIMEOUT_MS)
    if counted.matches is not None and counted.matches <= limit:
        return SearchCount(counted.matches, True, counted.table_rows)
    if connections[listings.db].vendor != "postgresql":
        # No estimate here: past the limit, every match is counted.
        return SearchCount(listings.count(), True)
    return estimated_search_count(listings, counted=counted.matches, table_rows=counted.table_rows)


def grouped_count_statement(
    bounds: tuple[str, Sequence], counts: Sequence[tuple[str, Sequence]], limit: int
) -> tuple[str, tuple]:
    """One statement selecting a search's bounds (low, high) from its groups and, only when
    they leave its count open (they differ, and the lower one is within the limit), the sum
    of `counts` (the counts of the matches the bounds leave out). The counts are
    uncorrelated subqueries in a CASE branch, which PostgreSQL runs only when reached."""
    bounds_sql, bounds_params = bounds
    summed = " + ".join(f"({count_sql})" for count_sql, _ in counts) or "0"
    sql = (
        f"SELECT low, high, CASE WHEN low = high OR low > %s THEN NULL ELSE {summed} END"  # noqa: S608
        f" FROM ({bounds_sql}) AS bounds"
    )
    count_params = [param for _, params in counts for param in params]
    return sql, (limit, *count_params, *bounds_params)


def _count_from_groups(listings: QuerySet, search: GroupedSearch) -> SearchCount:
    """Count a public search from its groups (grouped_count_statement), reading matches
    only where the groups leave the count open, each count no further than the limit."""
    limit = settings.PROPERTY_LIST_EXACT_COUNT_LIMIT
    counts = [_count_sql(part, limit + 1) for part in outside_parts(search, listings)]
    sql, params = grouped_count_statement(bounds_statement(search), counts, limit)
    if not counts:
        # The groups alone (no price range): a few hundred rows, never slow, so the count
        # needs no timeout, nor the transaction that holds it (three round trips).
        row, table_rows = first_row_with_table_rows(listings, sql, params)
    else:
        rows, table_rows = rows_within(
            listings, sql, params, timeout_ms=settings.PROPERTY_LIST_COUNT_TIMEOUT_MS
        )
        row = None if rows is None else rows[0]
    if row is None:
        return estimated_search_count(listings, counted=None, table_rows=None)
    low, high, outside = row
    if low == high:
        return SearchCount(high, True, table_rows)
    if outside is not None and low + outside <= limit:
        return SearchCount(low + outside, True, table_rows)
    # More than the limit: somewhere between the groups' bounds.
    return SearchCount(max(limit + 1, (low + high) // 2), False, table_rows)


def search_count(
    listings: QuerySet,
    *,
    grouped: GroupedSearch | None,
    celled: CelledSearch | None = None,
) -> SearchCount:
    """How many listings the search matches (`listings`, its matches as the viewer sees
    them); `grouped` and `celled`: the search as the groups and the map cells count it, for
    a viewer who sees only public listings (None otherwise)."""
    unordered = listings.order_by()
    if connections[listings.db].vendor == "postgresql":
        if grouped is not None:
            return _count_from_groups(unordered, grouped)
        counted = celled_count(celled, database=unordered.db) if celled is not None else None
        if counted is not None:
            total, table_rows = counted
            return SearchCount(total, True, table_rows)
    return counted_matches(unordered)
