"""Counts of public searches added up from groups of listings (PublicListingGroup).

Counting a broad search at 1,000,000 listings reads up to 10,001 index entries (about
4 ms of PostgreSQL's CPU, and the list's slowest requests: docs/performance.md). Most
public searches filter only on values a listing has one of: its transaction, kind, town,
category, bedrooms and price. PostgreSQL keeps, by triggers on the listings table, how many
public listings share each combination of them, the price by band; a town, a category and
a bedroom count also as "any". A search's count is then the sum of a few hundred groups:

- without a price range, every group lies wholly inside the search: the sum is the exact
  count, however large;
- with one, the groups of the bands wholly inside the range add up to a lower bound, and
  those of every band it touches to an upper bound. A lower bound above the exact-count
  limit decides the API's count without reading a match; otherwise only the matches in
  the bands the range cuts through are counted, and added to the lower bound.

The triggers add a statement's changes in the same transaction, so the groups are always
those of the rows the reading transaction sees. Only PostgreSQL has them.
"""

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from django.db import connections
from django.db.models import Q, QuerySet

from config.api.pagination import count_statement, matches_statement
from listings.models import HIDDEN_STATUSES, Property, PublicListingGroup

if TYPE_CHECKING:
    from listings.search_statements import SearchStatements

# The bands' lower edges: 10 EUR to 820,000,000 EUR in twelve steps a decade (the E12
# series), about 20 % apart. Band i holds prices from edge i - 1 (0 for the first) up to
# edge i, excluded; the last band has no upper edge. As PostgreSQL's width_bucket(price,
# edges) numbers them. Changing them needs a migration that installs the triggers again
# and rebuilds the groups (install_statements).
E12_SERIES = ("1.0", "1.2", "1.5", "1.8", "2.2", "2.7", "3.3", "3.9", "4.7", "5.6", "6.8", "8.2")
PRICE_BAND_EDGES: tuple[Decimal, ...] = tuple(
    Decimal(mantissa) * 10**exponent for exponent in range(1, 9) for mantissa in E12_SERIES
)
LAST_BAND = len(PRICE_BAND_EDGES)

# Keys that stand for "any" (no municipality is empty, no bedroom count negative).
ANY_TOWN = ""
ANY_CATEGORY = ""
ANY_BEDROOMS = -1
NO_BEDROOMS = -2


def price_band(price: Decimal) -> int:
    """The band of a price, as width_bucket numbers it."""
    return bisect.bisect_right(PRICE_BAND_EDGES, price)


def _band_floor(band: int) -> Decimal:
    """The lowest price of a band (prices are never negative)."""
    return Decimal(0) if band == 0 else PRICE_BAND_EDGES[band - 1]


def _band_ceiling(band: int) -> Decimal | None:
    """The edge above a band's prices (excluded), None for the last band."""
    return None if band == LAST_BAND else PRICE_BAND_EDGES[band]


@dataclass(frozen=True, slots=True)
class GroupedSearch:
    """A public search whose filters the groups hold: each None when not filtered on."""

    transaction_type: str | None = None
    kind: str | None = None
    # As the municipality filter compares it: stripped and lowercased.
    municipality: str | None = None
    category_id: str | None = None
    min_bedrooms: int | None = None
    min_price: Decimal | None = None
    max_price: Decimal | None = None

    def bands_inside(self) -> tuple[int, int] | None:
        """The first and last bands whose every price lies in the range; None if none does.

        The first is the lowest band whose floor is at least the minimum; the last, the
        highest whose ceiling is at most the maximum (the last band has none: only without
        a maximum). Found by bisection of the edges: a walk over the bands' ninety-seven
        pairs of Decimal comparisons, three times per search, was a twentieth of a
        search's CPU.
        """
        first = (
            0
            if self.min_price is None or self.min_price <= 0
            else (bisect.bisect_left(PRICE_BAND_EDGES, self.min_price) + 1)
        )
        last = (
            LAST_BAND
            if self.max_price is None
            else bisect.bisect_right(PRICE_BAND_EDGES, self.max_price) - 1
        )
        return (first, last) if first <= last else None

    def bands_touched(self) -> tuple[int, int] | None:
        """The first and last bands holding a price in the range; None if none can: from
        the band of the minimum (the first whose ceiling is above it) to the band of the
        maximum (the last whose floor is at most it)."""
        if self.max_price is not None and self.max_price < 0:
            return None
        first = 0 if self.min_price is None else price_band(self.min_price)
        last = LAST_BAND if self.max_price is None else price_band(self.max_price)
        return (first, last) if first <= last else None

    def outside_edges(self) -> dict[str, Decimal] | None:
        """Where the search's matches outside the bands wholly inside its range lie: below
        the first such band's floor (`below`, when the range starts under it) and from the
        last one's ceiling up (`above`, when the range ends above it); None when no band
        lies wholly inside. The lower bound plus the counts of those matches is the exact
        count."""
        inside = self.bands_inside()
        if inside is None:
            return None
        first, last = inside
        edges = {}
        if self.min_price is not None and _band_floor(first) > self.min_price:
            edges["below"] = _band_floor(first)
        ceiling = _band_ceiling(last)
        if self.max_price is not None and ceiling is not None and ceiling <= self.max_price:
            edges["above"] = ceiling
        return edges

    @staticmethod
    def edge_condition(side: str, edge: Decimal) -> Q:
        """The condition on the price of the matches on one side of the whole bands."""
        return Q(price__lt=edge) if side == "below" else Q(price__gte=edge)


def bounds_statement(search: GroupedSearch) -> tuple[str, list]:
    """SQL selecting `low` and `high`: at least and at most how many public listings the
    search matches (equal without a price range), and its parameters."""
    table = PublicListingGroup._meta.db_table
    conditions = ["municipality_key = %s", "category_key = %s"]
    params: list = [search.municipality or ANY_TOWN, search.category_id or ANY_CATEGORY]
    if search.min_bedrooms is None:
        conditions.append("bedrooms_key = %s")
        params.append(ANY_BEDROOMS)
    else:
        conditions.append("bedrooms_key >= %s")
        params.append(max(int(search.min_bedrooms), 0))
    if search.transaction_type is not None:
        conditions.append("transaction_type = %s")
        params.append(search.transaction_type)
    if search.kind is not None:
        conditions.append("kind = %s")
        params.append(search.kind)
    touched = search.bands_touched() or (1, 0)
    conditions.append("price_band BETWEEN %s AND %s")
    params += list(touched)
    inside = search.bands_inside() or (1, 0)
    # Only constant SQL and placeholders are joined: every value is a parameter.
    sql = (
        "SELECT COALESCE(SUM(listings) FILTER (WHERE price_band BETWEEN %s AND %s), 0) AS low,"  # noqa: S608
        " COALESCE(SUM(listings), 0) AS high"
        f" FROM {table} WHERE {' AND '.join(conditions)}"
    )
    return sql, [*inside, *params]


def grouped_count_statement(
    bounds: tuple[str, Sequence], counts: Sequence[tuple[str, Sequence]], limit: int | None
) -> tuple[str, tuple]:
    """One statement selecting a search's bounds (low, high) from its groups and, only when
    they leave its count open, the sum of `counts` (the counts of the matches the bounds
    leave out).

    The counts are uncorrelated subqueries in a CASE branch: PostgreSQL runs them only when
    the branch is reached, that is when the bounds differ and the lower one does not already
    pass the limit (None: when the bounds differ).
    """
    bounds_sql, bounds_params = bounds
    summed = " + ".join(f"({count_sql})" for count_sql, _ in counts) or "0"
    decided = "low = high" if limit is None else "low = high OR low > %s"
    sql = (
        f"SELECT low, high, CASE WHEN {decided} THEN NULL"  # noqa: S608
        f" ELSE {summed} END FROM ({bounds_sql}) AS bounds"
    )
    count_params = [param for _, params in counts for param in params]
    limits = () if limit is None else (limit,)
    return sql, (*limits, *count_params, *bounds_params)


@dataclass(frozen=True, slots=True)
class GroupCount:
    """How to count a public search from its groups: `bounds` selects at least and at most
    how many listings it matches; past the lower bound, only its matches in the price bands
    the range cuts through are left to count, on each side of the whole bands apart
    (`edges`: GroupedSearch.outside_edges; None: every match, when no band lies wholly
    inside the range)."""

    bounds: tuple[str, list]
    edges: dict[str, Decimal] | None
    # The search's statements compiled once for its shape (listings.search_statements);
    # None: compiled here.
    statements: "SearchStatements | None" = None

    @property
    def from_groups_alone(self) -> bool:
        """Whether the groups' sum is the exact count, no match read: no price range cuts
        through a band."""
        return self.edges == {}

    def statement(self, listings: QuerySet, *, limit: int | None) -> tuple[str, tuple]:
        """The bounds and, when they leave the count open, the counts of the search's
        matches (`listings`, unordered) outside the whole bands, in one statement
        (grouped_count_statement): each count capped just past `limit` (the API's exact
        limit), or whole for None."""
        cap = None if limit is None else limit + 1
        counts = None
        if self.statements is not None:
            counts = self.statements.partial_counts(self.edges, cap=cap)
        if counts is None:
            parts = (
                [listings]
                if self.edges is None
                else [
                    listings.filter(GroupedSearch.edge_condition(side, edge))
                    for side, edge in self.edges.items()
                ]
            )
            counts = [count_statement(matches_statement(part), cap) for part in parts]
        return grouped_count_statement(self.bounds, counts, limit)


def search_count(
    search: GroupedSearch | None,
    *,
    database: str,
    statements: "SearchStatements | None" = None,
) -> GroupCount | None:
    """How to count a public search on `database` from its groups, or None when the groups
    cannot count it (a filter they do not hold, or a database without them); `statements`:
    its own, from its shape's (listings.search_statements)."""
    if search is None or connections[database].vendor != "postgresql":
        return None
    return GroupCount(bounds_statement(search), search.outside_edges(), statements)


def exact_count(search: GroupedSearch | None, listings: QuerySet) -> int | None:
    """How many public listings a search matches, exactly: the groups' sum, and past the
    bands wholly inside a price range, the matches of the bands it cuts through (all of
    them: no limit). One statement. None when the groups cannot count the search, which is
    then counted from its matches. `listings` is the search's public matches."""
    count = search_count(search, database=listings.db)
    if count is None:
        return None
    sql, params = count.statement(listings.order_by(), limit=None)
    with connections[listings.db].cursor() as cursor:
        cursor.execute(sql, params)
        low, high, outside = cursor.fetchone()
    return high if low == high else low + outside


# --- What PostgreSQL runs -----------------------------------------------------------------

FUNCTION = "listings_public_groups_follow"
TRUNCATE_FUNCTION = "listings_public_groups_clear"
TRIGGERS = {
    "INSERT": ("listings_public_groups_insert", "REFERENCING NEW TABLE AS new_rows"),
    "UPDATE": (
        "listings_public_groups_update",
        "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows",
    ),
    "DELETE": ("listings_public_groups_delete", "REFERENCING OLD TABLE AS old_rows"),
}
TRUNCATE_TRIGGER = "listings_public_groups_truncate"


def _edges_literal() -> str:
    return "'{" + ",".join(str(edge) for edge in PRICE_BAND_EDGES) + "}'::numeric[]"


def _public_rows(source: str, change: int) -> str:
    """The public listings of `source` with what they add to their groups (1 or -1)."""
    hidden = ", ".join(f"'{status}'" for status in HIDDEN_STATUSES)
    return (
        "SELECT municipality, category_id, bedrooms, transaction_type, kind, price,"  # noqa: S608
        f" {change} AS change FROM {source} WHERE status NOT IN ({hidden})"
    )


def _add_to_groups(changes: str) -> str:
    """Add the changes (a query of _public_rows) to their groups, each also counted under
    "any town", "any category" and "any bedrooms": eight groups a listing. Groups are
    written in key order, so that concurrent writers lock shared groups in the same order."""
    table = PublicListingGroup._meta.db_table
    keys = "municipality_key, category_key, bedrooms_key, transaction_type, kind, price_band"
    return f"""
INSERT INTO {table} AS grp ({keys}, listings)
SELECT CASE WHEN any_town THEN '{ANY_TOWN}' ELSE LOWER(municipality) END,
       CASE WHEN any_category THEN '{ANY_CATEGORY}' ELSE category_id END,
       CASE WHEN any_bedrooms THEN {ANY_BEDROOMS} ELSE COALESCE(bedrooms, {NO_BEDROOMS}) END,
       transaction_type,
       COALESCE(kind, ''),
       width_bucket(price, {_edges_literal()}),
       SUM(change)
FROM ({changes}) AS changed
CROSS JOIN (VALUES (false), (true)) AS towns (any_town)
CROSS JOIN (VALUES (false), (true)) AS categories (any_category)
CROSS JOIN (VALUES (false), (true)) AS bedroom_counts (any_bedrooms)
GROUP BY 1, 2, 3, 4, 5, 6
HAVING SUM(change) <> 0
ORDER BY 1, 2, 3, 4, 5, 6
ON CONFLICT ({keys}) DO UPDATE SET listings = grp.listings + EXCLUDED.listings"""  # noqa: S608


def function_body() -> str:
    """The trigger function's body: add a statement's inserted, updated or deleted
    listings to their groups."""
    inserted = _public_rows("new_rows", 1)
    deleted = _public_rows("old_rows", -1)
    return f"""
BEGIN
  IF TG_OP = 'INSERT' THEN
    {_add_to_groups(inserted)};
  ELSIF TG_OP = 'UPDATE' THEN
    {_add_to_groups(f"{inserted} UNION ALL {deleted}")};
  ELSE
    {_add_to_groups(deleted)};
  END IF;
  RETURN NULL;
END
"""


def install_statements() -> list[str]:
    """Create (or replace) the triggers and rebuild every group from the listings."""
    listings = Property._meta.db_table
    groups = PublicListingGroup._meta.db_table
    statements = [
        f"CREATE OR REPLACE FUNCTION {FUNCTION}() RETURNS trigger LANGUAGE plpgsql"
        f" AS $body${function_body()}$body$",
        f"CREATE OR REPLACE FUNCTION {TRUNCATE_FUNCTION}() RETURNS trigger LANGUAGE plpgsql"  # noqa: S608
        f" AS $body$ BEGIN DELETE FROM {groups}; RETURN NULL; END $body$",
    ]
    for operation, (name, referencing) in TRIGGERS.items():
        statements += [
            f"DROP TRIGGER IF EXISTS {name} ON {listings}",
            f"CREATE TRIGGER {name} AFTER {operation} ON {listings} {referencing}"
            f" FOR EACH STATEMENT EXECUTE FUNCTION {FUNCTION}()",
        ]
    statements += [
        f"DROP TRIGGER IF EXISTS {TRUNCATE_TRIGGER} ON {listings}",
        f"CREATE TRIGGER {TRUNCATE_TRIGGER} AFTER TRUNCATE ON {listings}"
        f" FOR EACH STATEMENT EXECUTE FUNCTION {TRUNCATE_FUNCTION}()",
        # The trigger above holds a lock that keeps writers out until the rebuild commits.
        f"DELETE FROM {groups}",  # noqa: S608
        _add_to_groups(_public_rows(listings, 1)),
    ]
    return statements


def uninstall_statements() -> list[str]:
    listings = Property._meta.db_table
    names = [name for name, _ in TRIGGERS.values()] + [TRUNCATE_TRIGGER]
    return [f"DROP TRIGGER IF EXISTS {name} ON {listings}" for name in names] + [
        f"DROP FUNCTION IF EXISTS {FUNCTION}()",
        f"DROP FUNCTION IF EXISTS {TRUNCATE_FUNCTION}()",
    ]


def install(schema_editor) -> None:
    """Install the triggers and build the groups (a migration's step; PostgreSQL only)."""
    if schema_editor.connection.vendor != "postgresql":
        return
    for statement in install_statements():
        schema_editor.execute(statement)


def uninstall(schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for statement in uninstall_statements():
        schema_editor.execute(statement)
