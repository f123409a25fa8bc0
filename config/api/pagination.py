"""Page/limit pagination with strict parameters (D8) and the interface's envelopes."""

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.conf import settings
from django.db import OperationalError, connections, transaction
from django.db.models import F, Func, QuerySet, Value
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail
from rest_framework.pagination import BasePagination
from rest_framework.response import Response


@functools.cache
def page_limit_fields(max_limit: int) -> dict[str, serializers.IntegerField]:
    """`page` >= 1 and 1 <= `limit` <= max_limit, as DRF fields made once per limit: a
    serializer made for every request to read two integers cost a fifth of a search's
    filtering (docs/performance.md)."""
    return {
        "page": serializers.IntegerField(min_value=1),
        "limit": serializers.IntegerField(min_value=1, max_value=max_limit),
    }


def read_page_and_limit(query_params, *, max_limit: int) -> dict[str, int]:
    """The page and limit given, validated; anything else is a 400 naming the parameter,
    in DRF's words."""
    values, errors = {}, {}
    for name, field in page_limit_fields(max_limit).items():
        if name not in query_params:
            continue
        try:
            values[name] = field.run_validation(query_params[name])
        except serializers.ValidationError as error:
            errors[name] = error.detail
    if errors:
        raise serializers.ValidationError(errors)
    return values


def _slice(items: QuerySet | Sequence, *, offset: int, limit: int) -> list:
    """One page of a queryset or a list, as model instances or items."""
    return list(items[offset : offset + limit])


class PageLimitPagination(BasePagination):
    """Slices a queryset by `page` and `limit`; subclasses choose the response envelope."""

    default_limit = 10
    max_limit = 100
    # Whether `total` is exact; when it is an estimate, a page past it may still hold rows.
    exact = True
    # How deep the list can be paged: page * limit at most this many rows (None: no bound).
    result_window: int | None = None

    def _read_page_and_limit(self, request) -> None:
        given = read_page_and_limit(request.query_params, max_limit=self.max_limit)
        self.page = given.get("page", 1)
        self.limit = given.get("limit", self.default_limit)
        window = self.result_window
        if window is not None and self.page * self.limit > window:
            raise serializers.ValidationError(
                {
                    "page": [
                        ErrorDetail(
                            f"page * limit may be at most {window}: narrow the search or"
                            " change its order to reach further results.",
                            code="max_value",
                        )
                    ]
                }
            )

    def count(self, queryset: QuerySet) -> int:
        """totalItems: how many rows the filters match."""
        return queryset.count()

    def page_queryset(self, queryset: QuerySet | Sequence, offset: int) -> QuerySet | Sequence:
        """What the page is read from, once counted (subclasses may change how it is read)."""
        return queryset

    def _count_pages(self, queryset: QuerySet | Sequence) -> int:
        """Count, set total and pages; the offset of the requested page."""
        self.total = self.count(queryset) if isinstance(queryset, QuerySet) else len(queryset)
        self.pages = math.ceil(self.total / self.limit) if self.total else 0
        return (self.page - 1) * self.limit

    def paginate_queryset(self, queryset: QuerySet | Sequence, request, view=None):
        return self.paginate_rows(queryset, request, page_rows=_slice)

    def paginate_rows(
        self,
        queryset: QuerySet | Sequence,
        request,
        *,
        page_rows: Callable[..., list],
    ) -> list:
        """Read page and limit, count, then the page by `page_rows(queryset, offset, limit)`."""
        self._read_page_and_limit(request)
        offset = self._count_pages(queryset)
        if self.exact and offset >= self.total:
            return []
        return self.read_page(queryset, offset, page_rows=page_rows)

    def read_page(self, queryset: QuerySet | Sequence, offset: int, *, page_rows) -> list:
        """The counted page's rows (subclasses may read them their own way)."""
        return page_rows(self.page_queryset(queryset, offset), offset=offset, limit=self.limit)

    def get_paginated_response(self, data) -> Response:
        raise NotImplementedError

    def get_schema_operation_parameters(self, view):
        page = {"type": "integer", "minimum": 1, "default": 1}
        description = "Page number, from 1."
        if self.result_window is not None:
            page["maximum"] = self.result_window
            description += f" page * limit may be at most {self.result_window}."
        return [
            {
                "name": "page",
                "required": False,
                "in": "query",
                "description": description,
                "schema": page,
            },
            {
                "name": "limit",
                "required": False,
                "in": "query",
                "description": f"Items per page, 1 to {self.max_limit}.",
                "schema": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": self.max_limit,
                    "default": self.default_limit,
                },
            },
        ]


class DataPagination(PageLimitPagination):
    """`{data: [...], pagination: {total, page, limit, pages}}` (GET /notifications, /users)."""

    default_limit = 20

    def get_paginated_response(self, data) -> Response:
        return Response(
            {
                "data": data,
                "pagination": {
                    "total": self.total,
                    "page": self.page,
                    "limit": self.limit,
                    "pages": self.pages,
                },
            }
        )

    def get_paginated_response_schema(self, schema):
        integer = {"type": "integer"}
        return {
            "type": "object",
            "required": ["data", "pagination"],
            "properties": {
                "data": schema,
                "pagination": {
                    "type": "object",
                    "required": ["total", "page", "limit", "pages"],
                    "properties": {
                        "total": integer,
                        "page": integer,
                        "limit": integer,
                        "pages": integer,
                    },
                },
            },
        }


# SQLSTATE of a statement cancelled by statement_timeout.
QUERY_CANCELED = "57014"


@dataclass(frozen=True, slots=True)
class CappedCount:
    """A count stopped at a cap, and the planner's idea of the table's size."""

    # How many rows matched, at most the cap; None when the count was given up.
    matches: int | None
    # pg_class.reltuples of the queryset's table (PostgreSQL, when counted with a timeout).
    table_rows: int | None = None


@dataclass(frozen=True, slots=True)
class SearchCount:
    """What counting a search found: totalItems, whether it is exact, the table's size."""

    total: int
    exact: bool
    table_rows: int | None


@dataclass(frozen=True, slots=True)
class MatchesStatement:
    """The SQL that selects a constant for each row a queryset matches, and its parameters:
    compiled once, then counted (count_statement) or estimated (estimated_count) as text."""

    sql: str
    params: tuple


def matches_statement(queryset: QuerySet) -> MatchesStatement:
    """The queryset's matches, unordered, as a statement selecting a constant per row.

    A constant lets PostgreSQL count from the indexes of the filters alone (an index-only
    scan).
    """
    sql, params = queryset.order_by().values(one=Value(1)).query.sql_with_params()
    return MatchesStatement(sql, tuple(params))


def count_statement(matches: MatchesStatement, cap: int | None) -> tuple[str, tuple]:
    """The statement that counts the matches up to `cap` (it stops there; None: all of
    them), and its parameters."""
    limit = "" if cap is None else f" LIMIT {int(cap)}"
    sql = f"SELECT COUNT(*) FROM ({matches.sql}{limit}) AS capped"  # noqa: S608
    return sql, matches.params


# Sets the statement timeout for the current transaction and reads the old value and the
# table's estimated size; the select list is evaluated left to right.
_SET_TIMEOUT = (
    "SELECT current_setting('statement_timeout'),"
    " set_config('statement_timeout', %s, true),"
    " (SELECT reltuples::bigint FROM pg_class WHERE oid = %s::regclass)"
)
# Ends a count's query string. A timeout that fires just as the count finishes leaves its
# cancellation pending in the server, which then cancelled the connection's next statement
# (a page's rows: a 500; 1.3 % of counts ending near their timeout, in a loop of them). A
# statement after the count takes the pending cancellation inside the same string, where it
# counts as the count given up (capped_count); it also turns the timeout off for it.
_TIMEOUT_OFF = "SELECT set_config('statement_timeout', '0', true)"


def _sends_several_statements(connection) -> bool:
    """Whether one execute() may carry several statements: psycopg's client-side binding
    (Django's default) sends them as one simple query; server-side binding cannot."""
    return not connection.settings_dict.get("OPTIONS", {}).get("server_side_binding")


def capped_count(
    queryset: QuerySet,
    cap: int,
    *,
    timeout_ms: int = 0,
    statement: tuple[str, tuple] | None = None,
) -> CappedCount:
    """How many rows the queryset matches, counting no further than `cap`.

    `statement` is count_statement(...) of the queryset when the caller made it already.
    With `timeout_ms` on PostgreSQL, a count that takes longer is given up (None), and the
    table's estimated size is read with it (first_row_within).
    """
    count_sql, params = statement or count_statement(matches_statement(queryset), cap)
    connection = connections[queryset.db]
    if not timeout_ms or connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(count_sql, params)
            return CappedCount(cursor.fetchone()[0])
    row, table_rows = first_row_within(queryset, count_sql, params, timeout_ms=timeout_ms)
    return CappedCount(None if row is None else row[0], table_rows)


def first_row_within(
    queryset: QuerySet, sql: str, params: Sequence, *, timeout_ms: int
) -> tuple[tuple | None, int | None]:
    """The first row of a statement given `timeout_ms` to run (PostgreSQL), or None when it
    took longer and was given up; and the estimated size of the queryset's table, read
    with it.

    Outside a transaction (a web request), the timeout and the statement go as one query
    string, which PostgreSQL runs as one implicit transaction: the timeout ends with it, and
    it costs one round trip instead of four (BEGIN, timeout, statement, COMMIT); a last
    statement in it takes a cancellation left pending by a timeout that fired as the
    statement ended (_TIMEOUT_OFF). Inside a transaction, the statement runs in a savepoint
    that a cancellation rolls back, and the timeout is put back afterwards.
    """
    connection = connections[queryset.db]
    setting = [str(timeout_ms), queryset.model._meta.db_table]
    nested = connection.in_atomic_block
    try:
        if not nested and _sends_several_statements(connection):
            with connection.cursor() as cursor:
                cursor.execute(f"{_SET_TIMEOUT}; {sql}; {_TIMEOUT_OFF}", (*setting, *params))
                _previous, _timeout, table_rows = cursor.fetchone()
                cursor.nextset()
                return cursor.fetchone(), table_rows
        with transaction.atomic(using=queryset.db), connection.cursor() as cursor:
            cursor.execute(_SET_TIMEOUT, setting)
            previous, _timeout, table_rows = cursor.fetchone()
            cursor.execute(sql, params)
            row = cursor.fetchone()
            # Inside an outer transaction the timeout would outlive the statement; a
            # transaction of its own ends it.
            if nested:
                cursor.execute("SELECT set_config('statement_timeout', %s, true)", [previous])
            return row, table_rows
    except OperationalError as error:
        if getattr(error.__cause__, "sqlstate", None) == QUERY_CANCELED:
            return None, None
        raise


def sorted_after_filtering(queryset: QuerySet) -> QuerySet:
    """The queryset in the same order, with no index able to give it that order.

    For few matches in a large table, reading every match and sorting them is cheap, while
    walking an index of the sort column until the page is filled may read most of the table
    when the matches lie far along it (a rare town sorted by area: 0.8 s instead of 30 ms at
    1,000,000 listings). PostgreSQL's planner cannot know where they lie; an order on
    COALESCE(column, column), the same values, hides the indexes from it.
    """
    concrete = {field.name for field in queryset.model._meta.concrete_fields}
    names = queryset.query.order_by
    if not names or not all(
        isinstance(name, str) and name.lstrip("-") in concrete for name in names
    ):
        return queryset
    order = []
    for name in names:
        column = name.lstrip("-")
        value = Func(F(column), F(column), function="COALESCE")
        order.append(value.desc() if name.startswith("-") else value.asc())
    return queryset.order_by(*order)


def estimated_count(queryset: QuerySet, matches: MatchesStatement | None = None) -> int | None:
    """PostgreSQL's planner estimate of how many rows the queryset matches; None elsewhere.

    `matches` is matches_statement(queryset) when the caller compiled it already.
    """
    connection = connections[queryset.db]
    if connection.vendor != "postgresql":
        return None
    matches = matches or matches_statement(queryset)
    with connection.cursor() as cursor:
        # EXPLAIN's JSON comes back as a json column, which psycopg reads into lists.
        cursor.execute(f"EXPLAIN (FORMAT JSON) {matches.sql}", matches.params)
        plan = cursor.fetchone()[0]
    return int(plan[0]["Plan"]["Plan Rows"])


class PropertyPagination(PageLimitPagination):
    """`{properties, totalItems, totalItemsExact, totalPages, itemsPerPage, currentPage}`.

    Counting every match of a broad search costs a scan of most of the table (hundreds of
    milliseconds at 1,000,000 listings), so the count stops at PROPERTY_LIST_EXACT_COUNT_LIMIT
    matches: up to there `totalItems` is exact; past it, on PostgreSQL, it is the planner's
    estimate (never below the limit + 1) and `totalItemsExact` is false, as portals show
    "10,000+ results". A count that takes longer than PROPERTY_LIST_COUNT_TIMEOUT_MS is given
    up for the estimate too, so no search waits on its count. Pages past the true end are
    empty lists, as D8 says of any page past the end. SQLite has no estimate and counts
    exactly.
    """

    default_limit = 10
    # Reading a page deep in a search reads every row before it (OFFSET): a search is paged
    # as deep as its exact count goes, like a search engine's result window.
    result_window = settings.PROPERTY_LIST_RESULT_WINDOW
    # The table's estimated size, read with the count (PostgreSQL; None elsewhere).
    table_rows: int | None = None
    # Where counts are kept between requests (listings.cache.PublicCounts), when the view
    # gives one: set for public reads only.
    kept_counts = None
    # How many times the even estimate of an index walk's reads is allowed for matches
    # that gather at the far end of the sort order (page_queryset), by the leading sort
    # column. Prices and areas gather by town and kind; creation dates do not, so a walk by
    # date reads what an even spread says (a town's 9,600 listings above a price, newest
    # first: the walk 9 ms, sorting them 52 ms at 1,000,000 listings).
    walk_unevenness = 100
    walk_unevenness_by_column = {"created_at": 1}
    # How listings.groups counts this search (listings.groups.GroupCount: the view sets it
    # for the public searches the groups can count, on PostgreSQL): its `statement(...)`
    # selects the groups' bounds and, when they leave the count open, the matches left.
    group_count = None

    def count(self, queryset: QuerySet) -> int:
        limit = settings.PROPERTY_LIST_EXACT_COUNT_LIMIT
        unordered = queryset.order_by()
        # Compiling the matches' statement is a good part of a search's CPU: only once, and
        # only where it is counted or estimated.
        matches = None
        if self.group_count is not None:
            statement = self.group_count.statement(unordered, limit=limit)
        else:
            matches = matches_statement(unordered)
            statement = count_statement(matches, limit + 1)
        kept_counts = self.kept_counts
        if self.group_count is not None and self.group_count.from_groups_alone:
            # Adding up a few hundred groups costs less than keeping its result (the cache's
            # two round trips): only counts that read matches are kept.
            kept_counts = None
        kept = kept_counts.get(statement) if kept_counts is not None else None
        if kept is None:
            if self.group_count is not None:
                kept = self._grouped_count(unordered, statement, limit)
            else:
                kept = self._count(unordered, matches, statement, limit)
            if kept_counts is not None:
                kept_counts.store(statement, kept)
        self.exact = kept.exact
        self.table_rows = kept.table_rows
        return kept.total

    def _count(
        self,
        unordered: QuerySet,
        matches: MatchesStatement,
        statement: tuple[str, tuple],
        limit: int,
    ) -> SearchCount:
        counted = capped_count(
            unordered,
            limit + 1,
            timeout_ms=settings.PROPERTY_LIST_COUNT_TIMEOUT_MS,
            statement=statement,
        )
        capped = counted.matches
        if capped is not None and capped <= limit:
            return SearchCount(capped, True, counted.table_rows)
        return self._estimate(
            unordered, matches, limit, counted=capped, table_rows=counted.table_rows
        )

    def _grouped_count(
        self, unordered: QuerySet, statement: tuple[str, tuple], limit: int
    ) -> SearchCount:
        """Count from the search's groups (listings.groups.GroupCount.statement), reading
        matches only when the groups leave the count open."""
        sql, params = statement
        row, table_rows = first_row_within(
            unordered, sql, params, timeout_ms=settings.PROPERTY_LIST_COUNT_TIMEOUT_MS
        )
        if row is None:
            return self._estimate(unordered, None, limit, counted=None, table_rows=None)
        low, high, partial = row
        if low == high:
            return SearchCount(high, True, table_rows)
        if partial is not None and low + partial <= limit:
            return SearchCount(low + partial, True, table_rows)
        # More than the limit: somewhere between the groups' bounds.
        return SearchCount(max(limit + 1, (low + high) // 2), False, table_rows)

    def _estimate(
        self,
        unordered: QuerySet,
        matches: MatchesStatement | None,
        limit: int,
        *,
        counted: int | None,
        table_rows: int | None,
    ) -> SearchCount:
        """totalItems of a search counted past the limit (`counted`) or given up (None)."""
        estimate = estimated_count(unordered, matches)
        if estimate is None:
            return SearchCount(unordered.count(), True, table_rows)
        # Past the cap, or given up: an estimate, but never fewer than the rows counted.
        total = max(estimate, limit + 1) if counted is not None else estimate
        return SearchCount(total, False, table_rows)

    def page_queryset(self, queryset: QuerySet, offset: int) -> QuerySet:
        """Sort the matches themselves when that reads fewer rows than an index walk would.

        Walking the sort order's index reads (offset + limit) * table / matches rows to fill
        the page if the matches are spread evenly along it; sorting reads the matches. They
        seldom are: a cheap town's flats lie at the far end of a walk by falling price, and
        walking past them read 1,000 times the even estimate (0.9 s at 1,000,000 listings).
        So the walk is chosen only when even `walk_unevenness` times its even cost stays below
        the matches (once its cost, for a sort column whose values do not gather by the
        filters); otherwise the order is taken away from the indexes. More matches than the
        exact-count limit are never sorted: sorting costs more than reading them, and a
        search counted exactly past the limit (listings.groups) is broad enough for the walk
        (the "houses to rent" by price, 20,000 of them: sorted 55 ms, walked 1 ms).
        """
        if isinstance(queryset, QuerySet) and self.sorts_whole(queryset, offset):
            return sorted_after_filtering(queryset)
        return queryset

    def sorts_whole(self, queryset: QuerySet, offset: int) -> bool:
        """Whether the page is read by sorting the matches themselves (page_queryset)."""
        if not self.exact or not self.table_rows:
            return False
        if self.total > settings.PROPERTY_LIST_EXACT_COUNT_LIMIT:
            return False
        order = queryset.query.order_by
        leading = order[0].lstrip("-") if order and isinstance(order[0], str) else None
        unevenness = self.walk_unevenness_by_column.get(leading, self.walk_unevenness)
        walk = (offset + self.limit) * self.table_rows * unevenness
        return self.total * self.total < walk

    def read_page(self, queryset: QuerySet | Sequence, offset: int, *, page_rows) -> list:
        """The page's rows; a search with statements of its own (`group_count.statements`,
        listings.search_statements) finds the page's ids by its own statement."""
        statements = self.group_count.statements if self.group_count is not None else None
        ids = None
        if statements is not None:
            ids = statements.ids(
                offset=offset, limit=self.limit, sorted_whole=self.sorts_whole(queryset, offset)
            )
        if ids is None:
            return super().read_page(queryset, offset, page_rows=page_rows)
        return page_rows(queryset, offset=offset, limit=self.limit, ids_statement=ids)

    def get_paginated_response(self, data) -> Response:
        return Response(
            {
                "properties": data,
                "totalItems": self.total,
                "totalItemsExact": self.exact,
                "totalPages": self.pages,
                "itemsPerPage": self.limit,
                "currentPage": self.page,
            }
        )

    def get_paginated_response_schema(self, schema):
        integer = {"type": "integer"}
        return {
            "type": "object",
            "required": [
                "properties",
                "totalItems",
                "totalItemsExact",
                "totalPages",
                "itemsPerPage",
                "currentPage",
            ],
            "properties": {
                "properties": schema,
                "totalItems": integer,
                "totalItemsExact": {
                    "type": "boolean",
                    "description": "false when totalItems is an estimate (a broad search).",
                },
                "totalPages": integer,
                "itemsPerPage": integer,
                "currentPage": integer,
            },
        }
