"""Counts of public searches added up from groups of listings that PostgreSQL keeps.

Counting a broad search at 1,000,000 listings reads up to 10,001 index entries (about 4 ms
of PostgreSQL's CPU: the list's slowest requests, docs/performance.md). Most public searches
filter only on values a listing has one of: its transaction, kind, town, category, bedrooms
and price. Triggers on the listings table keep, in listings_publiclistinggroup, how many
public listings share each combination of them, the price by band; a town, a category and
a bedroom count also as "any" (listings/sql/public_listing_groups.sql). A search's count is
then the sum of a few hundred groups:

- without a price range, every group lies wholly inside the search: the sum is the exact
  count, however large;
- with one, the groups of the bands wholly inside the range add up to a lower bound, and
  those of every band it touches to an upper bound. A lower bound past the exact-count
  limit decides the count without reading a match; otherwise only the matches in the bands
  the range cuts through are counted, and added to the lower bound.

The triggers add a statement's changes in the same transaction, so the groups are always
those of the rows the reading transaction sees. Only PostgreSQL has them.
"""

import bisect
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from django.db.models import Q, QuerySet

from listings.models import PublicListingGroup
from listings.search.params import SearchParams
from listings.triggers import install_sql_file, uninstall_triggers

# The bands' lower edges: 10 EUR to 820,000,000 EUR in twelve steps a decade (the E12
# series), about 20 % apart. Band i holds prices from edge i - 1 (0 for the first) up to
# edge i, excluded; the last band has no upper edge. As PostgreSQL's width_bucket(price,
# edges) numbers them, in listings_price_band() of the SQL file (a test compares them):
# changing them means changing both, and a migration that runs the file again.
E12_SERIES = ("1.0", "1.2", "1.5", "1.8", "2.2", "2.7", "3.3", "3.9", "4.7", "5.6", "6.8", "8.2")
PRICE_BAND_EDGES: tuple[Decimal, ...] = tuple(
    Decimal(mantissa) * 10**exponent for exponent in range(1, 9) for mantissa in E12_SERIES
)
LAST_BAND = len(PRICE_BAND_EDGES)

# Keys that stand for "any" (no municipality is empty, no bedroom count negative).
ANY_TOWN = ""
ANY_CATEGORY = ""
ANY_BEDROOMS = -1
# The bedrooms key of a listing without bedrooms (not a house or a flat).
NO_BEDROOMS = -2

# The triggers, the functions they run and the rebuild of the groups.
SQL_FILE = Path(__file__).resolve().parent.parent / "sql" / "public_listing_groups.sql"


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
    """A public search whose criteria the groups hold: each None when not filtered on."""

    transaction_type: str | None = None
    kind: str | None = None
    # As the search compares it: lowercased.
    municipality: str | None = None
    category_id: str | None = None
    min_bedrooms: int | None = None
    min_price: Decimal | None = None
    max_price: Decimal | None = None

    def bands_inside(self) -> tuple[int, int] | None:
        """The first and last bands whose every price lies in the range; None if none does:
        the lowest band whose floor is at least the minimum, the highest whose ceiling is
        at most the maximum (the last band has none: only without a maximum)."""
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
        the band of the minimum to the band of the maximum."""
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


def grouped_search(params: SearchParams) -> GroupedSearch | None:
    """The search as the groups count it, or None when it has a criterion they do not hold
    (the order is no criterion)."""
    outside = (
        params.owner_id,
        params.status,
        params.min_area,
        params.max_area,
        params.box,
        params.circle,
        params.polygon,
    )
    if params.text or any(value is not None for value in outside):
        return None
    return GroupedSearch(
        transaction_type=params.transaction_type,
        kind=params.kind,
        municipality=params.municipality.lower() if params.municipality is not None else None,
        category_id=params.category_id,
        min_bedrooms=params.min_bedrooms,
        min_price=params.min_price,
        max_price=params.max_price,
    )


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


def outside_parts(search: GroupedSearch, listings: QuerySet) -> list[QuerySet]:
    """The search's matches (`listings`) that the groups' lower bound leaves out: every one
    when no band lies wholly inside its price range, else those on each side of the whole
    bands (none without a price range)."""
    edges = search.outside_edges()
    if edges is None:
        return [listings]
    sides = {"below": "price__lt", "above": "price__gte"}
    return [listings.filter(Q(**{sides[side]: edge})) for side, edge in edges.items()]


def install(schema_editor) -> None:
    """Install the triggers and rebuild the groups (a migration's step; PostgreSQL only)."""
    install_sql_file(schema_editor, SQL_FILE)


def uninstall(schema_editor) -> None:
    """Remove the triggers and their functions (reversing the migration that made them)."""
    uninstall_triggers(
        schema_editor,
        prefix="listings_public_groups",
        functions=(
            "listings_public_groups_follow()",
            "listings_public_groups_clear()",
            "listings_public_group_keys(text, text, integer, text, text, numeric)",
            "listings_price_band(numeric)",
        ),
    )
