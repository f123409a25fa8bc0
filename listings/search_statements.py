"""The statements of the public searches the groups count, compiled once per shape.

A visitor's search filters on a few of transaction, kind, town, category, bedrooms and price
(listings.groups.GroupedSearch), and is sorted one of seven ways. Its statements, the page's
ids and the counts of the matches in the price bands a range cuts through, differ from one
search of the same shape to the next only in their values; yet building them through the
ORM (filters, then compiling each statement) was a third of a list request's CPU. So each
statement of a shape is compiled once per process, from a search of that shape whose values
are stand-ins that no other value of it can be, and each search's own values take the
stand-ins' places.

What is compiled is what PropertyFilter builds: the stand-in searches go through the same
filterset. A statement is kept only if the same shape with a second set of stand-ins
compiles to the first one filled in with them (the same SQL, the values where the slots
are); otherwise that statement is left to the ORM (docs/performance.md).
"""

import functools
import itertools
import logging
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth.models import AnonymousUser
from django.http import QueryDict

from config.api.pagination import count_statement, matches_statement, sorted_after_filtering
from listings.groups import GroupedSearch

logger = logging.getLogger(__name__)

# Each parameter the groups hold and the GroupedSearch value it becomes.
GROUPED = {
    "transactionType": "transaction_type",
    "type": "kind",
    "municipality": "municipality",
    "categoryId": "category_id",
    "minBedrooms": "min_bedrooms",
    "minPrice": "min_price",
    "maxPrice": "max_price",
}
# Two searches' values that the form accepts and that no other value of a search can be
# (the second checks the statement made from the first), and the price edges of the counts
# of the matches below and above the whole bands (GroupedSearch.outside_edges).
STAND_INS = (
    {
        "transactionType": "RENT",
        "type": "development",
        "municipality": "Stand-in town for compiling",
        "categoryId": "standincategory0000000001",
        "minBedrooms": "987654",
        "minPrice": "987654321.01",
        "maxPrice": "987654321.02",
        "below": Decimal("987654321.03"),
        "above": Decimal("987654321.04"),
    },
    {
        "transactionType": "SALE",
        "type": "hotel",
        "municipality": "Other stand-in town",
        "categoryId": "standincategory0000000002",
        "minBedrooms": "987653",
        "minPrice": "987654320.01",
        "maxPrice": "987654320.02",
        "below": Decimal("987654320.03"),
        "above": Decimal("987654320.04"),
    },
)
# A count of every match (no band wholly inside the range) has no edge.
EVERY_MATCH = "every match"
# Where a page's size and start go in the ids' statements.
PAGE_SLOTS = " LIMIT %s OFFSET %s"


@dataclass(frozen=True)
class Statement:
    """SQL and its parameters, some of which (`slots`: position, value's name, and the type
    the ORM gave the stand-in's parameter) are filled in for each search."""

    sql: str
    params: tuple
    slots: tuple[tuple[int, str, type], ...]

    def bind(self, values: dict) -> tuple[str, list]:
        """The SQL and its parameters with a search's values in the slots."""
        params = list(self.params)
        for position, name, prepared in self.slots:
            params[position] = prepared(values[name])
        return self.sql, params


def _templated(sql: str, params: tuple, stand_ins: dict) -> Statement:
    """The statement with a slot for each stand-in, found among its parameters."""
    slots = []
    for name, value in stand_ins.items():
        positions = [index for index, param in enumerate(params) if param == value]
        if len(positions) != 1:
            raise ValueError(f"stand-in {name} is {len(positions)} of the parameters")
        slots.append((positions[0], name, type(params[positions[0]])))
    return Statement(sql, tuple(params), tuple(slots))


def _compiled(names: tuple[str, ...], sort: str, part: str, cap: int | None, stand_ins: dict):
    """One statement of a search of the shape, with these stand-ins: its SQL, parameters
    and the stand-ins' values as the search holds them (GroupedSearch, page, edges)."""
    # Imported here: the filters import the groups, which this module's callers import.
    from listings.filters import PropertyFilter
    from listings.selectors import property_visible_to

    data = QueryDict(mutable=True)
    data.update({name: stand_ins[name] for name in names})
    if sort:
        data["sort"] = sort
    filterset = PropertyFilter(data, queryset=property_visible_to(viewer=AnonymousUser()))
    if not filterset.is_valid():
        raise ValueError(f"stand-ins refused: {filterset.errors}")
    search = filterset.grouped_search()
    values = {GROUPED[name]: getattr(search, GROUPED[name]) for name in names}
    listings = filterset.qs
    if part in ("walk", "sort whole"):
        ordered = sorted_after_filtering(listings) if part == "sort whole" else listings
        sql, params = ordered.values_list("pk", flat=True).query.sql_with_params()
        return sql + PAGE_SLOTS, (*params, None, None), values
    matches = listings.order_by()
    if part != EVERY_MATCH:
        values[part] = stand_ins[part]
        matches = matches.filter(GroupedSearch.edge_condition(part, stand_ins[part]))
    return (*count_statement(matches_statement(matches), cap), values)


@functools.lru_cache(maxsize=4096)
def shape_statement(
    names: tuple[str, ...], sort: str, part: str, cap: int | None
) -> Statement | None:
    """One statement of the searches filtering on `names` sorted by `sort` (the API's
    names): the page's ids (`part` "walk" or "sort whole", config.api.pagination.
    PropertyPagination.page_queryset) or a count of matches capped at `cap` (EVERY_MATCH,
    "below", "above"); None when the ORM compiles it (it depends on more than the values)."""
    first, second = STAND_INS
    try:
        sql, params, values = _compiled(names, sort, part, cap, first)
        statement = _templated(sql, params, values)
        other_sql, other_params, other_values = _compiled(names, sort, part, cap, second)
    except ValueError:
        logger.warning("Search statements %s are left to the ORM", (names, sort, part))
        return None
    if statement.bind(other_values) != (other_sql, list(other_params)):
        logger.warning("Search statements %s are left to the ORM", (names, sort, part))
        return None
    return statement


@dataclass(frozen=True)
class SearchStatements:
    """A public search's statements from its shape's (shape_statement); each None when
    left to the ORM."""

    names: tuple[str, ...]
    sort: str
    values: dict

    def ids(self, *, offset: int, limit: int, sorted_whole: bool) -> tuple[str, list] | None:
        """The statement of the ids of a page of the search's matches, in its order."""
        part = "sort whole" if sorted_whole else "walk"
        statement = shape_statement(self.names, self.sort, part, None)
        if statement is None:
            return None
        sql, params = statement.bind(self.values)
        params[-2:] = [limit, offset]
        return sql, params

    def partial_counts(
        self, edges: dict | None, *, cap: int | None
    ) -> list[tuple[str, list]] | None:
        """The statements counting the search's matches the groups leave open (listings.
        groups.GroupCount.statement), each up to `cap` (config.api.pagination.
        count_statement): on each side of the whole bands (`edges`, GroupedSearch.
        outside_edges), or every match for None."""
        parts = {EVERY_MATCH: {}} if edges is None else {s: {s: e} for s, e in edges.items()}
        counts = []
        for part, edge in parts.items():
            # A count's statement does not depend on the order: one for every sort.
            statement = shape_statement(self.names, "", part, cap)
            if statement is None:
                return None
            counts.append(statement.bind({**self.values, **edge}))
        return counts


def search_statements(search: GroupedSearch, *, sort: str | None) -> SearchStatements:
    """The statements of a public search the groups count (its filterset's grouped search)."""
    names = tuple(
        name for name, attribute in GROUPED.items() if getattr(search, attribute) is not None
    )
    values = {GROUPED[name]: getattr(search, GROUPED[name]) for name in names}
    return SearchStatements(names, sort or "", values)


def shapes_compile(*, cap: int | None) -> int:
    """Compile every shape's statements now, counts capped at `cap`: a worker does it once
    at its start (config/wsgi.py) rather than on the first search of each shape, which
    then took 1.2 ms more (2,048 statements, 2.5 s). Returns how many there are."""
    # Imported here for the same reason as in _compiled.
    from listings.filters import SORTS

    compiled = 0
    names = tuple(GROUPED)
    for size in range(len(names) + 1):
        for shape in itertools.combinations(names, size):
            for sort in ("", *SORTS):
                for part in ("walk", "sort whole"):
                    shape_statement(shape, sort, part, None)
                    compiled += 1
            parts = [EVERY_MATCH]
            parts += ["below"] if "minPrice" in shape else []
            parts += ["above"] if "maxPrice" in shape else []
            for part in parts:
                shape_statement(shape, "", part, cap)
                compiled += 1
    return compiled
