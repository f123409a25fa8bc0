"""The listing search: every read of "the listings matching these criteria".

    params = search_params(request.GET)          # params.py: read and check the criteria
    result = listing_search(viewer=user, params=params, page=1, limit=10)

The API's list (GET /properties), the website's search page and anything else that searches
listings call `listing_search`. Its path, each step in one module:

1. params.py: the criteria (SearchParams) from a query string, or SearchParamsInvalid;
   the page's offset within the result window (search_page).
2. query.py: the listings the viewer may see that match, in the search's order.
3. counting.py: how many (exact up to a limit, then an estimate; groups.py counts public
   searches from groups of listings PostgreSQL keeps, cells.py those on a map box from its
   map cells). A relevance search's window, and a map search the map cells do not count
   (PostgreSQL), are counted with their page instead (step 4).
4. pages.py: the page's ids, then their rows (listings.selectors.property_list_rows);
   windows.py: how a relevance search finds its window of newest matches; days.py: how a
   page of every public listing by creation date starts at its day.
5. For viewers who see only public listings, the result, and apart from it the search's
   count when it is read on its own (the same for every page and order), are kept in the
   shared cache of public reads (listings.cache) until a write makes them stale.
"""

import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from django.conf import settings
from django.db import connections

from accounts.models import User
from listings.cache import public_read
from listings.search.cells import celled_search
from listings.search.counting import SearchCount, search_count
from listings.search.days import dated_page_ids, starts_at_its_day
from listings.search.groups import grouped_search
from listings.search.pages import counted_page_ids, page_ids, ranked_page_ids
from listings.search.params import (
    PARAMETERS,
    SearchParams,
    SearchParamsInvalid,
    search_page,
    search_params,
    search_query,
)
from listings.search.plans import planned_for_its_values
from listings.search.query import (
    in_search_order,
    ranks,
    scored_windows,
    search_filtered,
    search_matches,
    seeking_ranges,
)
from listings.selectors import property_list_rows, viewer_sees_only_public

__all__ = [
    "PARAMETERS",
    "SearchParams",
    "SearchParamsInvalid",
    "SearchResult",
    "listing_search",
    "search_matches",
    "search_params",
    "search_query",
]


@dataclass(frozen=True)
class SearchResult:
    """One page of a search: its listings, as the search's reader of listings reads them
    (by default list rows: listings.selectors.property_list_rows), and how many match."""

    rows: list
    total: int
    # False when `total` is an estimate (a broad search, past the exact-count limit).
    exact: bool
    page: int
    limit: int

    @property
    def pages(self) -> int:
        return math.ceil(self.total / self.limit) if self.total else 0


# Reads the listings of a page by their ids, in their order.
Reader = Callable[[list[str]], list]


def _search(
    *, viewer: User, params: SearchParams, page: int, limit: int, read: Reader
) -> SearchResult:
    filtered = search_filtered(viewer=viewer, params=params)
    ids, count = _count_and_page(
        viewer=viewer, params=params, filtered=filtered, page=page, limit=limit
    )
    return SearchResult(read(ids), count.total, count.exact, page, limit)


def _count_and_page(
    *,
    viewer: User,
    params: SearchParams,
    filtered,
    page: int,
    limit: int,
) -> tuple[list[str], SearchCount]:
    """The ids of one page of the search's matches (`filtered`: search_filtered), in its
    order, and their count. The statements of a map search (a box, a circle or a drawn
    area) that find them are planned for their values (listings.search.plans)."""
    offset = (page - 1) * limit
    located = not (params.box is None and params.circle is None and params.polygon is None)
    # Where on the map decides how a map search is best found (listings.search.plans); its
    # listings, read by their ids, are planned the same wherever they are.
    planned = planned_for_its_values(filtered.db) if located else contextlib.nullcontext()
    if ranks(params, filtered.db):
        # A relevance search's matches are its window, a few rows whose finding is their
        # cost: scored as they are found, and counted by the statement that reads the page.
        # A recent slice's window is the search's when it is full (listings.search.windows).
        with planned:
            for window in scored_windows(filtered, params.text):
                ids, total = ranked_page_ids(window, offset=offset, limit=limit)
                if total >= settings.SEARCH_RANK_WINDOW:
                    break
        return ids, SearchCount(total, True)
    matches = in_search_order(filtered, params)
    # The same matches as a count or a page sorted whole reads every one of them.
    whole = seeking_ranges(matches, params)
    public = viewer_sees_only_public(viewer)
    celled = celled_search(params) if public else None
    count = None
    if located and celled is None and connections[filtered.db].vendor == "postgresql":
        # A map search the map cells do not count is sorted from its matches for its page,
        # which its count reads too: both come from one pass over them, planned by the
        # transaction that gives it its time.
        ids, count = counted_page_ids(whole, offset=offset, limit=limit)
        if ids is not None:
            return ids, count
    with planned:
        if count is None and public:
            # A count depends on neither the page nor the order: a visitor paging through a
            # search, or sorting it, asks for the same count again, which is most of what a
            # page costs the database.
            count = public_read(
                ("count", replace(params, sort=None)),
                lambda: search_count(whole, grouped=grouped_search(params), celled=celled),
            )
        elif count is None:
            count = search_count(whole, grouped=None)
        # A page past an estimated total is still read: the estimate may be short.
        if count.exact and offset >= count.total:
            return [], count
        if public and starts_at_its_day(params, filtered.db):
            return dated_page_ids(params, offset=offset, limit=limit, database=filtered.db), count
        ids = page_ids(
            matches, count=count, offset=offset, limit=limit, located=located, whole=whole
        )
    return ids, count


def listing_search(
    *,
    viewer: User,
    params: SearchParams,
    page: int = 1,
    limit: int = 10,
    read: Reader | None = None,
) -> SearchResult:
    """One page of the listings the viewer may see that match `params`, and their count.

    `read` reads the page's listings by their ids: list rows by default (the API's); the
    website reads what its cards show (listings.selectors.property_cards). Raises
    SearchParamsInvalid (on `page`) for a page past the result window.
    """
    search_page(page=page, limit=limit)
    read = read or property_list_rows
    if not viewer_sees_only_public(viewer):
        return _search(viewer=viewer, params=params, page=page, limit=limit, read=read)
    # Every visitor and customer reads the same public listings: one result for them all.
    return public_read(
        ("search", params, page, limit, f"{read.__module__}.{read.__qualname__}"),
        lambda: _search(viewer=viewer, params=params, page=page, limit=limit, read=read),
    )
