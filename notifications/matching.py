"""Which saved searches a listing matches: read from indexes over the stored criteria, never
by running every saved search.

A saved search keeps, besides its criteria, the criteria most searches have as columns
(notifications.models.SavedSearch: town, kind, transaction, price range, bedrooms, the map
area's bounding box; `saved_search_columns` writes them). A listing that appears is looked for in
three groups, each from an index: the searches of its town (a btree on `town`), those of a
map area holding its point (a GiST index of the areas' boxes, PostgreSQL; plain comparisons
elsewhere), and those of neither (a partial index). The kind, transaction and price columns
narrow them in the same statement.

It stays exact: the columns hold the criteria as the search itself reads them (the town
lowercased as its filter compares it, the prices as bounds included, a drawn area's or a
circle's bounding box, which holds it, every longitude for an area across the
antimeridian), and a search whose criteria say more (`checked_on_listing`: words, areas of
floor, a category, an owner, a status, a drawn area, a circle) is then run on the listing
alone: one more statement for all of them. The equality test (tests/notifications/
test_matching.py) compares the answer with running every saved search on every listing.
"""

import dataclasses

from django.contrib.auth.models import AnonymousUser
from django.db.models import BooleanField, Func, Q, QuerySet, Value

from listings.functions import TownKey
from listings.models import Property
from listings.search import SearchParams, search_params
from listings.search.query import circle_box, search_filtered
from notifications.models import AlertFrequency, SavedSearch

# The criteria the columns hold exactly; any other makes a search checked on the listing.
COLUMN_ATTRIBUTES = (
    "municipality",
    "kind",
    "transaction_type",
    "min_price",
    "max_price",
    "min_bedrooms",
    "box",
)


def _area(params: SearchParams) -> tuple[float, float, float, float] | None:
    """A box (west, south, east, north) that holds every match's point: the bbox, else a
    drawn area's bounding box, else a circle's; every longitude across the antimeridian."""
    if params.box is not None:
        box = params.box
        area = (box.west, box.south, box.east, box.north)
    elif params.polygon is not None:
        area = params.polygon.bounds()
    elif params.circle is not None:
        box = circle_box(params.circle)
        area = (box.west, box.south, box.east, box.north)
    else:
        return None
    west, south, east, north = area
    return (-180.0, south, 180.0, north) if west > east else area


def saved_search_columns(params: SearchParams) -> dict:
    """The stored columns of a saved search whose criteria are `params`."""
    area = _area(params)
    crossing = params.box is not None and params.box.west > params.box.east
    more = any(
        getattr(params, field.name) not in (None, "")
        for field in dataclasses.fields(SearchParams)
        if field.name not in COLUMN_ATTRIBUTES
    )
    return {
        "town": params.municipality.lower() if params.municipality else None,
        "kind": params.kind,
        "transaction_type": params.transaction_type,
        "min_price": params.min_price,
        "max_price": params.max_price,
        "min_bedrooms": params.min_bedrooms,
        "area_west": area[0] if area else None,
        "area_south": area[1] if area else None,
        "area_east": area[2] if area else None,
        "area_north": area[3] if area else None,
        "checked_on_listing": more or crossing,
    }


class AreaHolds(Func):
    """Whether a saved search's map area (its box columns) holds a point: PostgreSQL's
    `box @> box` on the expression of the GiST index (migration 0005); elsewhere the same
    as four comparisons."""

    output_field = BooleanField()

    def __init__(self, longitude: float, latitude: float):
        super().__init__(Value(longitude), Value(latitude))

    def as_sql(self, compiler, connection, **extra_context):
        longitude, latitude = (compiler.compile(part) for part in self.get_source_expressions())
        sql = (
            f"(area_west <= {longitude[0]} AND {longitude[0]} <= area_east"
            f" AND area_south <= {latitude[0]} AND {latitude[0]} <= area_north)"
        )
        return sql, (*longitude[1], *longitude[1], *latitude[1], *latitude[1])

    def as_postgresql(self, compiler, connection, **extra_context):
        longitude, latitude = (compiler.compile(part) for part in self.get_source_expressions())
        # The point as a box of no size: the GiST operator class of boxes answers `box @>
        # box`, not `box @> point`.
        point = f"point({longitude[0]}, {latitude[0]})"
        sql = (
            "box(point(area_west, area_south), point(area_east, area_north))"
            f" @> box({point}, {point})"
        )
        return sql, (*longitude[1], *latitude[1], *longitude[1], *latitude[1])


def _candidates(listing: Property) -> QuerySet[SavedSearch]:
    """The active saved searches whose columns the listing meets: one statement, each of its
    three groups from an index."""
    holds = Q(AreaHolds(listing.longitude, listing.latitude))
    town = Q(town=TownKey(Value(listing.municipality))) & (Q(area_west__isnull=True) | holds)
    area = Q(town__isnull=True, area_west__isnull=False) & holds
    neither = Q(town__isnull=True, area_west__isnull=True)
    # A listing without bedrooms (land, offices, ...) meets no bedroom criterion.
    bedrooms = Q(min_bedrooms__isnull=True)
    if listing.bedrooms is not None:
        bedrooms |= Q(min_bedrooms__lte=listing.bedrooms)
    return (
        SavedSearch.objects.exclude(frequency=AlertFrequency.PAUSED)
        .filter(town | area | neither)
        .filter(
            Q(kind__isnull=True) | Q(kind=listing.kind),
            Q(transaction_type__isnull=True) | Q(transaction_type=listing.transaction_type),
            Q(min_price__isnull=True) | Q(min_price__lte=listing.price),
            Q(max_price__isnull=True) | Q(max_price__gte=listing.price),
            bedrooms,
        )
    )


def saved_searches_matching(*, listing: Property) -> list[SavedSearch]:
    """The active (not PAUSED) saved searches whose results hold `listing`, as a visitor
    sees them: one statement from indexes, and one more for those whose criteria say more
    than their columns. Oldest first."""
    candidates = list(_candidates(listing).order_by("created_at", "id"))
    checked = [candidate for candidate in candidates if candidate.checked_on_listing]
    held = _holding(listing, checked)
    return [
        candidate
        for candidate in candidates
        if not candidate.checked_on_listing or candidate.pk in held
    ]


def _holding(listing: Property, saved_searches: list[SavedSearch]) -> set[str]:
    """The ids of those saved searches whose results hold the listing: each one's search run
    on the listing alone, all in one statement."""
    if not saved_searches:
        return set()
    visitor = AnonymousUser()
    parts = [
        search_filtered(viewer=visitor, params=search_params(saved_search.criteria))
        .filter(pk=listing.pk)
        .values_list(Value(saved_search.pk), flat=True)
        for saved_search in saved_searches
    ]
    first, *others = parts
    # A union takes the model's default order again, which its one column cannot give.
    return set(first.union(*others, all=True).order_by()) if others else set(first)
