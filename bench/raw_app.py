"""The raw baseline: GET /api/v1/properties without Django, for the benchmark's ratio.

The same page as the platform's list (same filters, same page, same keys in the JSON),
built by hand-written SQL through psycopg and serialized with orjson, served by the same
gunicorn settings. It counts by the platform's rule (listings.search.counting): exactly up
to PROPERTY_LIST_EXACT_COUNT_LIMIT matches, given up after PROPERTY_LIST_COUNT_TIMEOUT_MS,
the planner's estimate past either; so "platform / raw" measures the framework, not a
different amount of counting. (The platform also counts public searches from the listing
groups it keeps; the baseline counts the matches.) Only the parameters the benchmark sends
are understood, and they are trusted: this is a yardstick, not an endpoint.

Run: DATABASE_URL=postgres://... gunicorn bench.raw_app:application
"""

import atexit
import functools
import math
import os
import time
from datetime import UTC
from urllib.parse import parse_qs

import orjson
import psycopg
from psycopg.rows import tuple_row
from psycopg_pool import ConnectionPool

KIND_KEYS = {
    "house": "house",
    "apartment": "apartment",
    "land": "land",
    "office": "office",
    "commercial": "commercial",
    "hotel": "hotels",
    "development": "development",
}
# The type-specific fields of each kind (listings.models.KIND_FIELDS), camelCased.
KIND_FIELDS = {
    "house": ("rooms", "bedrooms", "bathrooms", "swimming_pool", "parking_space"),
    "apartment": (
        "rooms",
        "bedrooms",
        "bathrooms",
        "parking_space",
        "swimming_pool",
        "floors",
        "balcony",
        "elevator",
    ),
    "land": ("serviced", "land_type"),
    "office": ("floors", "parking_space", "elevators", "type_of_activity"),
    "commercial": ("floors", "elevators", "parking_space", "type_of_activity"),
    "hotel": ("rooms", "floors", "parking_space", "swimming_pool"),
    "development": ("number_of_units", "type_of_activity"),
}
RECORD_COLUMNS = tuple(dict.fromkeys(field for fields in KIND_FIELDS.values() for field in fields))
SORTS = {
    "price": "p.price, p.id",
    "-price": "p.price DESC, p.id DESC",
    "createdAt": "p.created_at, p.id",
    "-createdAt": "p.created_at DESC, p.id DESC",
    "area": "p.area, p.id",
    "-area": "p.area DESC, p.id DESC",
}
# The stored text-search vector (listings 0008), and the platform's window of ranked
# matches (listings.search.query.ranked_window).
SEARCH = "p.search_document"
SEARCH_RANK_WINDOW = int(os.environ.get("SEARCH_RANK_WINDOW", "1000"))
# The recent slice's margin, an index entry's cost and its blocks' reach
# (listings.search.windows).
SLICE_MARGIN = 2
INDEX_ENTRY_COST = 0.003
COVER_REACH = 4 / 3
# A recent slice: the listings in the creation blocks from a date's to the newest
# listing's, which the text index holds beside the document (listings migration 0034).
IN_RECENT_SLICE = (
    "listing_creation_blocks(p.created_at) && listing_creation_cover(%s,"
    " (SELECT max(created_at) FROM listings_property))"
)
COMMON = (
    "id",
    "title",
    "description",
    "price",
    "latitude",
    "longitude",
    "transactionType",
    "municipality",
    "address",
    "area",
    "status",
    "ownerId",
    "categoryId",
    "createdAt",
    "updatedAt",
)


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


RECORD_KEYS = {
    kind: [(column, camel(column)) for column in KIND_FIELDS[kind]] for kind in KIND_FIELDS
}
MEDIA_URL = os.environ.get("RAW_MEDIA_URL", "/media/")
# The platform's counting rule, from the same settings (config/settings/base.py).
EXACT_COUNT_LIMIT = int(os.environ.get("PROPERTY_LIST_EXACT_COUNT_LIMIT", "10000"))
COUNT_TIMEOUT_MS = int(os.environ.get("PROPERTY_LIST_COUNT_TIMEOUT_MS", "25"))
MATCHES = (
    "SELECT 1 FROM listings_property p"
    " LEFT JOIN listings_type_specific_record r ON r.property_id = p.id WHERE {where}"
)


@functools.cache
def connection_pool() -> ConnectionPool:
    """The process's connections to DATABASE_URL, opened on first use."""
    pool = ConnectionPool(
        os.environ["DATABASE_URL"],
        min_size=1,
        max_size=2,
        # Planned without parallel workers, as the platform's connections are
        # (config/settings/base.py): the same server for both.
        kwargs={
            "row_factory": tuple_row,
            "autocommit": True,
            "options": "-c max_parallel_workers_per_gather=0",
        },
        open=True,
    )
    atexit.register(pool.close)
    return pool


def where_clause(params: dict[str, str]) -> tuple[str, list]:
    """The WHERE of the filters the benchmark sends, with its arguments."""
    conditions = ["p.public"]
    arguments: list = []
    if "type" in params:
        conditions.append("p.kind = %s")
        arguments.append(params["type"])
    if "transactionType" in params:
        conditions.append("p.transaction_type = %s")
        arguments.append(params["transactionType"])
    if "municipality" in params:
        conditions.append("lower(p.municipality) = %s")
        arguments.append(params["municipality"].strip().lower())
    if "categoryId" in params:
        conditions.append("p.category_id = %s")
        arguments.append(params["categoryId"])
    if "minPrice" in params:
        conditions.append("p.price >= %s")
        arguments.append(params["minPrice"])
    if "maxPrice" in params:
        conditions.append("p.price <= %s")
        arguments.append(params["maxPrice"])
    if "minBedrooms" in params:
        conditions.append("p.bedrooms >= %s")
        arguments.append(int(params["minBedrooms"]))
    if "bbox" in params:
        west, south, east, north = (float(part) for part in params["bbox"].split(","))
        conditions.append("p.latitude BETWEEN %s AND %s AND p.longitude BETWEEN %s AND %s")
        arguments += [south, north, west, east]
    if "polygon" in params:
        # The area's bounding box (the latitude/longitude indexes), then its points, as
        # listings.functions.InPolygon tests them.
        numbers = [float(part) for part in params["polygon"].split(",")]
        longitudes, latitudes = numbers[0:-2:2], numbers[1:-2:2]
        conditions.append("p.latitude BETWEEN %s AND %s AND p.longitude BETWEEN %s AND %s")
        arguments += [min(latitudes), max(latitudes), min(longitudes), max(longitudes)]
        conditions.append("poly_contain_pt(%s::polygon, point(p.longitude, p.latitude))")
        vertices = zip(longitudes, latitudes, strict=True)
        arguments.append("(" + ",".join(f"({x!r},{y!r})" for x, y in vertices) + ")")
    if params.get("q"):
        conditions.append(f"{SEARCH} @@ websearch_to_tsquery('simple_unaccent'::regconfig, %s)")
        arguments.append(params["q"])
    return " AND ".join(conditions), arguments


def count(connection, where: str, arguments: list) -> tuple[int, bool]:
    """totalItems and whether it is exact: the matches counted up to the limit within the
    timeout, else the planner's estimate (never below the limit + 1 when counted past it).

    The timeout, the count and a last statement go as one query string (client-side
    binding), one implicit transaction: the timeout ends with it, and the last statement
    takes a cancellation that fires just as the count ends.
    """
    matches = MATCHES.format(where=where)
    statements = (
        "SELECT set_config('statement_timeout', %s, true);"
        f" SELECT count(*) FROM ({matches} LIMIT {EXACT_COUNT_LIMIT + 1}) AS capped;"
        " SELECT set_config('statement_timeout', '0', true)"
    )
    counted = None
    try:
        with psycopg.ClientCursor(connection) as cursor:
            cursor.execute(statements, [str(COUNT_TIMEOUT_MS), *arguments])
            cursor.nextset()
            counted = cursor.fetchone()[0]
    except psycopg.errors.QueryCanceled:
        pass
    if counted is not None and counted <= EXACT_COUNT_LIMIT:
        return counted, True
    return estimate(connection, where, arguments, counted=counted), False


def estimate(connection, where: str, arguments: list, *, counted: int | None) -> int:
    """The planner's estimate of the matches, never below the limit + 1 when they were
    counted past it (`counted`; None: given up)."""
    matches = MATCHES.format(where=where)
    plan = connection.execute(f"EXPLAIN (FORMAT JSON) {matches}", arguments).fetchone()[0]
    estimated = int(plan[0]["Plan"]["Plan Rows"])
    return max(estimated, EXACT_COUNT_LIMIT + 1) if counted is not None else estimated


def counted_with_its_page(params: dict[str, str]) -> bool:
    """Whether the platform reads the search's page and count in one pass: a map search its
    map cells do not count (listings.search.cells.celled_search), a drawn area or a box with
    more than a transaction and a kind."""
    cells_hold = {"bbox", "transactionType", "type", "sort", "page", "limit"}
    return "polygon" in params or ("bbox" in params and not set(params) <= cells_hold)


def counted_rows(
    connection, where: str, arguments: list, order: str, *, page: int, limit: int
) -> tuple[list | None, int | None]:
    """A map search's page of rows and its count from one pass over no more than the limit
    + 1 matches, within the count's timeout, as the platform reads them
    (listings.search.pages.counted_page_ids). Rows None: the page is still to be read,
    past the count (None when it has to be counted on its own: a page past the end)."""
    page_ids = (
        "SELECT p.id, COUNT(*) OVER () AS total FROM (SELECT p.id, p.price, p.area,"
        f" p.created_at FROM listings_property p WHERE {where} LIMIT {EXACT_COUNT_LIMIT + 1})"
        f" AS p ORDER BY {order} LIMIT %s OFFSET %s"
    )
    statements = (
        "SELECT set_config('statement_timeout', %s, true);"
        f" {page_statement(page_ids, order)};"
        " SELECT set_config('statement_timeout', '0', true)"
    )
    try:
        with psycopg.ClientCursor(connection) as cursor:
            cursor.execute(
                statements, [str(COUNT_TIMEOUT_MS), *arguments, limit, (page - 1) * limit]
            )
            cursor.nextset()
            rows = cursor.fetchall()
    except psycopg.errors.QueryCanceled:
        return None, estimate(connection, where, arguments, counted=None)
    if not rows:
        return (None, None) if page > 1 else ([], 0)
    total = rows[0][-1]
    if total > EXACT_COUNT_LIMIT:
        return None, estimate(connection, where, arguments, counted=total)
    return rows, total


# How long a process keeps a relevance search's paths, as the platform keeps them
# (listings.search.windows: the cache search_paths), and how many at most.
PATH_SECONDS = 60
KEPT_PATHS_AT_MOST = 10_000
# A relevance search's paths by its filters, their values and the window: (until, paths).
KEPT_PATHS: dict[tuple, tuple[float, list]] = {}


def window_paths(connection, where: str, arguments: list) -> list[tuple[str, list, bool]]:
    """The windows a relevance search tries in turn, as the platform does
    (listings.search.windows), each as its filters, their values and whether its matches
    are sorted rather than walked along the date index: the matches of a recent slice
    first when that reads the fewest listings, then every match; the first full window is
    the search's. Kept PATH_SECONDS in the process, as the platform keeps them."""
    key = (where, tuple(arguments), SEARCH_RANK_WINDOW)
    kept = KEPT_PATHS.get(key)
    if kept is not None and kept[0] > time.monotonic():
        return kept[1]
    paths = cheapest_paths(connection, where, arguments)
    if len(KEPT_PATHS) >= KEPT_PATHS_AT_MOST:
        KEPT_PATHS.clear()
    KEPT_PATHS[key] = (time.monotonic() + PATH_SECONDS, paths)
    return paths


def cheapest_paths(connection, where: str, arguments: list) -> list[tuple[str, list, bool]]:
    """window_paths, read from the planner's statistics of the search's matches."""
    plan = connection.execute(
        f"EXPLAIN (FORMAT JSON) {MATCHES.format(where=where)}", arguments
    ).fetchone()[0]
    matched = max(1, int(plan[0]["Plan"]["Plan Rows"]))
    table = max(
        1,
        connection.execute(
            "SELECT reltuples::bigint FROM pg_class WHERE oid = 'listings_property'::regclass"
        ).fetchone()[0],
    )
    walk = SEARCH_RANK_WINDOW * table / matched
    slice_rows = SLICE_MARGIN * SEARCH_RANK_WINDOW * table / matched
    sliced = (
        INDEX_ENTRY_COST * (matched + slice_rows) + COVER_REACH * SLICE_MARGIN * SEARCH_RANK_WINDOW
    )
    paths = [(where, arguments, matched < walk)]
    if sliced < min(walk, matched) and slice_rows < table:
        row = connection.execute(
            "SELECT histogram_bounds::text::timestamptz[] FROM pg_stats WHERE schemaname ="
            " current_schema() AND tablename = 'listings_property' AND attname = 'created_at'"
        ).fetchone()
        bounds = row[0] if row else None
        # The bucket the share reaches into, and how far into it (listings.search.windows).
        whole, part = divmod(slice_rows / table * (len(bounds) - 1), 1) if bounds else (0, 0)
        if bounds and len(bounds) > 1 and whole < len(bounds) - 1:
            later, earlier = bounds[-1 - int(whole)], bounds[-2 - int(whole)]
            since = later - part * (later - earlier)
            paths.insert(0, (f"{where} AND {IN_RECENT_SLICE}", [*arguments, since], True))
    return paths


def window_statement(where: str, sorted_whole: bool) -> str:
    """A relevance search's window, scored as it is read, the page sorted from it in the
    same statement (listings.search.pages.ranked_page_ids)."""
    # COALESCE(column, column): the same order, which no index gives.
    newest = (
        "COALESCE(p.created_at, p.created_at) DESC, COALESCE(p.id, p.id) DESC"
        if sorted_whole
        else "p.created_at DESC, p.id DESC"
    )
    return (
        "SELECT p.id, p.created_at, ts_rank("
        f"{SEARCH}, websearch_to_tsquery('simple_unaccent'::regconfig, %s)) AS relevance"
        " FROM listings_property p LEFT JOIN listings_type_specific_record r"
        f" ON r.property_id = p.id WHERE {where}"
        f" ORDER BY {newest} LIMIT {SEARCH_RANK_WINDOW}"
    )


# Parameters of a page of every public listing (no criterion), read from the days as the
# platform reads it (listings.search.days).
UNFILTERED = frozenset({"page", "limit", "sort"})
# The orders such a page starts at its day in: descending (newest first) or not.
DAY_SORTS = {None: True, "-createdAt": True, "createdAt": False}


def day_page_ids(descending: bool) -> str:
    """The ids of a page of every public listing in creation order, started at the day of
    its first listing from the days the platform keeps (listings.search.days); its arguments
    are the offset, the limit and the offset again."""
    direction = "DESC" if descending else "ASC"
    bound = (
        "p.created_at < ((SELECT day FROM start) + 1)::timestamp AT TIME ZONE 'UTC'"
        if descending
        else "p.created_at >= (SELECT day FROM start)::timestamp AT TIME ZONE 'UTC'"
    )
    return (
        "WITH days AS ("
        f" SELECT day, listings, SUM(listings) OVER (ORDER BY day {direction}) AS through"
        " FROM listings_publiclistingday"
        "), start AS ("
        " SELECT day, through - listings AS before FROM days"
        f" WHERE through > %s ORDER BY day {direction} LIMIT 1"
        ")"
        f" SELECT p.id, NULL AS total FROM listings_property p WHERE p.public AND {bound}"
        f" ORDER BY p.created_at {direction}, p.id {direction}"
        " LIMIT %s OFFSET (%s - (SELECT before FROM start))"
    )


def page_statement(page_ids: str, order: str) -> str:
    """The page's rows, records and photos, from a statement of its ids (and total)."""
    record_columns = ", ".join(f"r.{column}" for column in RECORD_COLUMNS)
    return f"""
        WITH ids AS MATERIALIZED ({page_ids})
        SELECT p.id, p.title, p.description, p.price, p.latitude, p.longitude,
               p.transaction_type, p.municipality, p.address, p.area, p.status,
               p.owner_id, p.category_id, p.created_at, p.updated_at,
               r.kind, {record_columns}, r.id AS record_id,
               (SELECT array_agg(ARRAY[i.id, i.file] ORDER BY i.position, i.id)
                FROM media_app_image i WHERE i.property_id = p.id),
               ids.total
        FROM ids
        JOIN listings_property p ON p.id = ids.id
        LEFT JOIN listings_type_specific_record r ON r.property_id = p.id
        ORDER BY {order}
    """


def ranked_rows(
    connection, params: dict[str, str], where: str, arguments: list, *, page: int, limit: int
) -> tuple[list, int]:
    """A relevance search's page of rows and its window's count, counted with its page as
    the platform does (listings.search.pages.ranked_page_ids)."""
    rank = f"ts_rank({SEARCH}, websearch_to_tsquery('simple_unaccent'::regconfig, %s))"
    order = f"{rank} DESC, p.created_at DESC, p.id DESC"
    query = params["q"]
    for window_where, window_arguments, sorted_whole in window_paths(connection, where, arguments):
        window = window_statement(window_where, sorted_whole)
        statement = page_statement(
            f"SELECT id, COUNT(*) OVER () AS total FROM ({window}) AS ranked"
            " ORDER BY relevance DESC, created_at DESC, id DESC LIMIT %s OFFSET %s",
            order,
        )
        # A window's rank comes before its filters' values in the statement.
        rows = connection.execute(
            statement, [query, *window_arguments, limit, (page - 1) * limit, query]
        ).fetchall()
        if rows:
            total = rows[0][-1]
        elif page > 1:
            total = connection.execute(
                f"SELECT COUNT(*) FROM ({window}) AS ranked", [query, *window_arguments]
            ).fetchone()[0]
        else:
            total = 0
        if total >= SEARCH_RANK_WINDOW:
            break
    return rows, total


def list_page(params: dict[str, str], host: str) -> bytes:
    """The page as JSON: its count (count()), then one statement for the page's ids, their
    rows and their photos."""
    page = int(params.get("page", 1))
    limit = int(params.get("limit", 10))
    where, arguments = where_clause(params)
    with connection_pool().connection() as connection:
        if params.get("q") and not params.get("sort"):
            rows, total = ranked_rows(connection, params, where, arguments, page=page, limit=limit)
            exact = True
        else:
            order = SORTS[params["sort"]] if params.get("sort") else "p.created_at DESC, p.id DESC"
            rows = total = None
            if counted_with_its_page(params):
                rows, total = counted_rows(
                    connection, where, arguments, order, page=page, limit=limit
                )
            exact = rows is not None
            if total is None:
                total, exact = count(connection, where, arguments)
            offset = (page - 1) * limit
            if rows is None and set(params) <= UNFILTERED and params.get("sort") in DAY_SORTS:
                statement = page_statement(day_page_ids(DAY_SORTS[params.get("sort")]), order)
                rows = connection.execute(statement, [offset, limit, offset]).fetchall()
            if rows is None:
                # The page's ids first, from the filters and the order alone (an index where
                # one serves), then their rows: the platform's deferred join
                # (listings.search.pages).
                statement = page_statement(
                    f"SELECT p.id, NULL AS total FROM listings_property p WHERE {where}"
                    f" ORDER BY {order} LIMIT %s OFFSET %s",
                    order,
                )
                rows = connection.execute(statement, [*arguments, limit, offset]).fetchall()
    media = f"http://{host}{MEDIA_URL}"
    items = []
    record_start = len(COMMON) + 1
    for row in rows:
        item = dict(zip(COMMON, row[: len(COMMON)], strict=True))
        item["price"] = float(item["price"])
        item["area"] = float(item["area"])
        item["createdAt"] = item["createdAt"].astimezone(UTC).isoformat().replace("+00:00", "Z")
        item["updatedAt"] = item["updatedAt"].astimezone(UTC).isoformat().replace("+00:00", "Z")
        kind = row[len(COMMON)]
        item["type"] = kind
        item["images"] = [{"id": image_id, "url": media + file} for image_id, file in row[-2] or ()]
        record_values = dict(zip(RECORD_COLUMNS, row[record_start:-3], strict=True))
        for record_kind, key in KIND_KEYS.items():
            if record_kind == kind:
                record = {"id": row[-3], "propertyId": item["id"]}
                for column, name in RECORD_KEYS[kind]:
                    record[name] = record_values[column]
                item[key] = record
            else:
                item[key] = None
        items.append(item)
    return orjson.dumps(
        {
            "properties": items,
            "totalItems": total,
            "totalItemsExact": exact,
            "totalPages": math.ceil(total / limit) if total else 0,
            "itemsPerPage": limit,
            "currentPage": page,
        }
    )


def application(environ, start_response):
    """WSGI entry point: the list page, or 404."""
    path = environ.get("PATH_INFO", "")
    if path.rstrip("/") != "/api/v1/properties":
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"not found"]
    params = {key: values[0] for key, values in parse_qs(environ.get("QUERY_STRING", "")).items()}
    body = list_page(params, environ.get("HTTP_HOST", "localhost"))
    start_response(
        "200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
    )
    return [body]
