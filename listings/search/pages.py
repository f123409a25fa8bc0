"""One page of a search: its listings' ids first, in the search's order, then their rows.

OFFSET reads and throws away every row before the page, joined and whole: a page 800 deep
joined 8,000 records (0.6 s at 1,000,000 listings). Picking the page's ids first reads only
what the filters and the order need, often from an index alone (the public indexes hold
every search column: listings.models.public_index), and the page's listings are then read
by their ids (a "deferred join": listings.selectors.property_list_rows), whatever the order.

The ids are read by walking the index of the order until the page is filled, or by sorting
the matches themselves when that reads fewer rows (sorted_after_filtering). A result that is
small by construction (a relevance search's window) is counted by the statement that reads
its page (ranked_page_ids).
"""

from django.conf import settings
from django.db import connections
from django.db.models import F, Func, QuerySet

from listings.search.counting import (
    SearchCount,
    counted_matches,
    estimated_search_count,
    rows_within,
)
from listings.search.plans import planned_for_its_values

# How many times the even estimate of an index walk's reads is allowed for matches that
# gather at the far end of the sort order, by the leading sort column. Prices and areas
# gather by town and kind; creation dates do not, so a walk by date reads what an even
# spread says (a town's 9,600 listings above a price, newest first: the walk 9 ms, sorting
# them 52 ms at 1,000,000 listings).
WALK_UNEVENNESS = 100
WALK_UNEVENNESS_BY_COLUMN = {"created_at": 1}


def sorted_after_filtering(listings: QuerySet) -> QuerySet:
    """The listings in the same order, with no index able to give that order.

    For few matches in a large table, reading every match and sorting them is cheap, while
    walking an index of the sort column until the page is filled may read most of the table
    when the matches lie far along it (a rare town sorted by area: 0.8 s instead of 30 ms at
    1,000,000 listings). PostgreSQL's planner cannot know where they lie; an order on
    COALESCE(column, column), the same values, hides the indexes from it. Orders on
    anything but the model's columns (a text search's rank) are left as they are.
    """
    concrete = {field.name for field in listings.model._meta.concrete_fields}
    names = listings.query.order_by
    if not names or not all(
        isinstance(name, str) and name.lstrip("-") in concrete for name in names
    ):
        return listings
    order = []
    for name in names:
        column = name.lstrip("-")
        value = Func(F(column), F(column), function="COALESCE")
        order.append(value.desc() if name.startswith("-") else value.asc())
    return listings.order_by(*order)


def sorts_whole(
    listings: QuerySet, *, count: SearchCount, offset: int, limit: int, located: bool = False
) -> bool:
    """Whether the page's ids are read by sorting the matches rather than walking the index
    of the order.

    Walking reads (offset + limit) * table / matches rows to fill the page if the matches
    are spread evenly along the index; sorting reads the matches. They seldom are: a cheap
    town's flats lie at the far end of a walk by falling price, and walking past them read
    1,000 times the even estimate (0.9 s at 1,000,000 listings). So the walk is chosen only
    when even WALK_UNEVENNESS times its even cost stays below the matches. More matches than
    the exact-count limit are never sorted: sorting costs more than reading them, and such a
    search is broad enough for the walk ("houses to rent" by price, 20,000 of them: sorted
    55 ms, walked 1 ms).

    A map search (`located`: a box, a circle or a drawn area) is sorted whenever its count
    is exact and within the limit: the orders' indexes do not hold the coordinates, so a
    walk reads each row it passes from the table to test them, while the map's matches are
    read from a box index alone (a town's 3,445 listings for sale, newest first: walked
    45 ms, sorted 2 to 4 ms).
    """
    if not count.exact or not count.table_rows:
        return False
    if count.total > settings.PROPERTY_LIST_EXACT_COUNT_LIMIT:
        return False
    if located:
        return True
    order = listings.query.order_by
    leading = order[0].lstrip("-") if order and isinstance(order[0], str) else None
    unevenness = WALK_UNEVENNESS_BY_COLUMN.get(leading, WALK_UNEVENNESS)
    walk = (offset + limit) * count.table_rows * unevenness
    return count.total * count.total < walk


def page_ids(
    listings: QuerySet,
    *,
    count: SearchCount,
    offset: int,
    limit: int,
    located: bool = False,
    whole: QuerySet | None = None,
) -> list[str]:
    """The ids of the listings of one page of the search, in its order: one statement.
    `located`: a map search (sorts_whole); `whole`: the same listings as a statement that
    reads every one of them is best given them (listings.search.query.seeking_ranges), for
    a page sorted whole."""
    if sorts_whole(listings, count=count, offset=offset, limit=limit, located=located):
        listings = sorted_after_filtering(listings if whole is None else whole)
    return list(listings.values_list("pk", flat=True)[offset : offset + limit])


def _counted_page_statement(listings: QuerySet, *, offset: int, limit: int) -> tuple[str, tuple]:
    """One statement reading the search's matches, no more than the exact-count limit + 1,
    with the columns of its order: each row of its page, sorted from them, carries how many
    there are (a window function, run before the page is cut)."""
    pk_name = listings.model._meta.pk.name
    # Each field of the order (the primary key as "pk") and whether it is descending.
    order = [
        ("pk" if name.lstrip("-") == pk_name else name.lstrip("-"), name.startswith("-"))
        for name in listings.query.order_by
    ]
    names = list(dict.fromkeys(["pk", *(field for field, _descending in order)]))
    cap = settings.PROPERTY_LIST_EXACT_COUNT_LIMIT + 1
    sql, params = listings.order_by().values_list(*names)[:cap].query.sql_with_params()
    quote = connections[listings.db].ops.quote_name
    aliases = {name: quote(f"column_{position}") for position, name in enumerate(names)}
    order_sql = ", ".join(
        f"{aliases[field]} {'DESC' if descending else 'ASC'}" for field, descending in order
    )
    # Only the queryset's own SQL and placeholders, and names made here, are joined: every
    # value is a parameter.
    statement = (
        f"SELECT {aliases['pk']}, COUNT(*) OVER ()"  # noqa: S608
        f" FROM ({sql}) AS capped ({', '.join(aliases.values())})"
        f" ORDER BY {order_sql} LIMIT %s OFFSET %s"
    )
    return statement, (*params, limit, offset)


def counted_page_ids(
    listings: QuerySet, *, offset: int, limit: int
) -> tuple[list[str] | None, SearchCount]:
    """The ids of one page of a map search (a box, a circle or a drawn area) and its count,
    from one pass over its matches (PostgreSQL); the ids are None when the page is still to
    be read (page_ids), past an estimated count.

    A map search's page is sorted from its matches whenever they are within the exact-count
    limit (sorts_whole), which reads every one of them, as counting them does: a drawn area
    counted, then paged, read them twice (5.0 ms a request, 3.1 ms in one pass, over the
    benchmark's polygon searches at 1,000,000 listings). The pass reads no more than the
    limit + 1 matches, within the count's time (PROPERTY_LIST_COUNT_TIMEOUT_MS); more, or
    given up, is counted as any search past the limit is (an estimate), and the page then
    read on its own. A page past the end has no row to carry the count: the matches are
    counted on their own.

    The pass is planned for its values (listings.search.plans) by the statement that gives
    it its time, in the one transaction that holds both: four round trips fewer than a
    transaction for the plan around a savepoint for the time (a drawn area, in-process
    over the benchmark's 1,000 at 1,000,000 listings: 5.8 to 6.1 ms of CPU a request
    against 6.7 to 7.1). What is counted past the pass is planned for its values too.
    """
    ordered = listings.query.order_by
    if not ordered or not all(isinstance(name, str) for name in ordered):
        raise ValueError("a counted page needs an order on the model's fields")
    sql, params = _counted_page_statement(listings, offset=offset, limit=limit)
    rows, table_rows = rows_within(
        listings, sql, params, timeout_ms=settings.PROPERTY_LIST_COUNT_TIMEOUT_MS, planned=True
    )
    if rows is not None and (rows or not offset):
        total = rows[0][1] if rows else 0
        if total <= settings.PROPERTY_LIST_EXACT_COUNT_LIMIT:
            return [pk for pk, _total in rows], SearchCount(total, True, table_rows)
    # Given up, past the limit, or a page past the end: counted apart, planned as the pass.
    with planned_for_its_values(listings.db):
        if rows is None:
            return None, estimated_search_count(listings, counted=None, table_rows=None)
        if not rows:
            return None, counted_matches(listings.order_by())
        return None, estimated_search_count(listings, counted=rows[0][1], table_rows=table_rows)


def ranked_page_ids(window: QuerySet, *, offset: int, limit: int) -> tuple[list[str], int]:
    """The ids of one page of a relevance search, best match first, then newest, and how
    many listings its window holds (PostgreSQL).

    `window` is the window's rows of (id, created_at, relevance), scored as the window is
    read (listings.search.query.scored_windows); the page is sorted from them in the same
    statement, and the window counted beside each id by a window function, which runs
    before the page is cut. Scoring the listings of the window after finding it read each
    of them again by id (a common word at 1,000,000 listings: 10.2 ms against 6.0 ms in one
    pass), and counting it in a statement of its own found the window twice (26 ms and then
    38 to 79 ms for the page). A page past the end has no row to carry the count: it is
    counted on its own.
    """
    sql, params = window.query.sql_with_params()
    # Only the queryset's own SQL and placeholders are joined: every value is a parameter.
    ranked = f"({sql}) AS ranked (id, created_at, relevance)"
    with connections[window.db].cursor() as cursor:
        cursor.execute(
            f"SELECT id, COUNT(*) OVER () FROM {ranked}"  # noqa: S608
            " ORDER BY relevance DESC, created_at DESC, id DESC LIMIT %s OFFSET %s",
            [*params, limit, offset],
        )
        rows = cursor.fetchall()
        if rows:
            return [pk for pk, _total in rows], rows[0][1]
        if not offset:
            return [], 0
        cursor.execute(f"SELECT COUNT(*) FROM {ranked}", params)  # noqa: S608
        return [], cursor.fetchone()[0]
