"""Which saved searches a listing matches: read from indexes over the stored criteria, never
by running every saved search.

A saved search keeps, besides its criteria, the criteria most searches have as columns
(notifications.models.SavedSearch: town, kind, transaction, price range, bedrooms, the map
area's bounding box, a circle's center and radius, a drawn area, the words of a plain `q`;
`saved_search_columns` writes them). A listing that appears is looked for in four groups,
each from an index: the searches of its town (a btree on `town`), those of a map area
holding its point (a GiST index of the areas' boxes, PostgreSQL; plain comparisons
elsewhere), those of words alone whose every word is in the listing's search document (a
btree of their first word, PostgreSQL), and the rest (a partial index). The kind,
transaction, price, bedroom, circle and drawn-area columns narrow them in the same
statement.

It stays exact: the columns hold the criteria as the search itself reads them (the town
lowercased as its filter compares it, the prices and bedrooms as bounds included, a drawn
area's or a circle's bounding box, which holds it, every longitude for a box across the
antimeridian, a plain `q`'s words folded as the text search folds them), circles and drawn
areas are tested by the search's own formula and function with the same values, and a
search whose criteria say more (`checked_on_listing`: other words, areas of floor, a
category, an owner, a status, a circle across the antimeridian; on SQLite any words or
drawn area) is then run on the listing alone: two more statements for all of them. The
equality test (tests/notifications/test_matching.py) compares the answer with running every
saved search on every listing, on both databases.

At 1,000,000 listings and 100,000 saved searches a listing's matching takes 19 to 20 ms at
the median, 27 to 28 ms at p95, against 104 to 124 and 308 to 416 ms with drawn areas and
circles checked one search at a time, words from a GIN index and no kind or transaction in
the indexes' keys (docs/performance.md, `make bench-matching`, alternating runs).
"""

import dataclasses
import re
from typing import NamedTuple

from django.contrib.auth.models import AnonymousUser
from django.db import connections
from django.db.models import BooleanField, F, Func, Q, QuerySet, Value

from listings.functions import TownKey
from listings.models import HIDDEN_STATUSES, Property
from listings.search import SearchParams, search_params
from listings.search.query import circle_box, haversine_km, search_filtered
from listings.text import folded
from notifications.models import KIND_KEY, TRANSACTION_KEY, AlertFrequency, SavedSearch

# A word of a plain `q`, folded (plain_words).
PLAIN_WORD = re.compile(r"[a-z0-9]+")
# The criteria the columns hold exactly; any other makes a search checked on the listing.
COLUMN_ATTRIBUTES = (
    "municipality",
    "kind",
    "transaction_type",
    "min_price",
    "max_price",
    "min_bedrooms",
    "box",
    "circle",
    "polygon",
)


def _area(params: SearchParams) -> tuple[float, float, float, float] | None:
    """A box (west, south, east, north) that holds every match's point: the bbox, else a
    drawn area's bounding box, else a circle's; west > east across the antimeridian."""
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
    return area


def plain_words(text: str) -> str | None:
    """The words of a `q` that is plain, folded and space-separated, else None.

    Plain: words of letters and digits between spaces, none of them `or` (websearch syntax's
    OR). PostgreSQL reads such a `q` as all its words (websearch_to_tsquery), each folded by
    the search's configuration as listings.text.folded folds it; a listing matches it when
    its document holds every one. Quotes, a leading `-`, hyphens and other signs make a `q`
    that is not plain.
    """
    words = folded(text).split()
    if not words or any(not PLAIN_WORD.fullmatch(word) or word == "or" for word in words):
        return None
    return " ".join(sorted(set(words)))


def saved_search_columns(params: SearchParams) -> dict:
    """The stored columns of a saved search whose criteria are `params`."""
    area = _area(params)
    # A box across the antimeridian is stored as every longitude, which holds more than
    # the search's: such a search is checked on the listing.
    crossing = area is not None and area[0] > area[2]
    if crossing:
        area = (-180.0, area[1], 180.0, area[3])
    words = plain_words(params.text) if params.text else None
    more = any(
        getattr(params, field.name) not in (None, "")
        for field in dataclasses.fields(SearchParams)
        if field.name not in COLUMN_ATTRIBUTES and not (field.name == "text" and words)
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
        "circle_latitude": params.circle.latitude if params.circle else None,
        "circle_longitude": params.circle.longitude if params.circle else None,
        "circle_radius_km": params.circle.radius_km if params.circle else None,
        "polygon": params.polygon.as_postgresql() if params.polygon else None,
        "words": words,
        "checked_on_listing": more or crossing,
    }


class AreaHolds(Func):
    """Whether a saved search's map area (its box columns) holds a point, edges included:
    four comparisons, as the search compares a listing with its bbox; on PostgreSQL after
    `box @> box` on the expression of the GiST index (migration 0005), which finds them
    (its geometry compares with a tolerance of 1e-6, so it only narrows)."""

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
        exact, exact_params = self.as_sql(compiler, connection, **extra_context)
        longitude, latitude = (compiler.compile(part) for part in self.get_source_expressions())
        # The point as a box of no size: the GiST operator class of boxes answers `box @>
        # box`, not `box @> point`.
        point = f"point({longitude[0]}, {latitude[0]})"
        indexed = (
            "box(point(area_west, area_south), point(area_east, area_north))"
            f" @> box({point}, {point})"
        )
        params = (*longitude[1], *latitude[1], *longitude[1], *latitude[1], *exact_params)
        return f"({indexed} AND {exact})", params


class PolygonHolds(Func):
    """Whether a saved search's drawn area (its `polygon` column) holds a point, edges
    included: PostgreSQL's poly_contain_pt, the function the search's own test calls
    (listings.functions.InPolygon), on the same area and point."""

    output_field = BooleanField()

    def __init__(self, longitude: float, latitude: float):
        super().__init__(Value(longitude), Value(latitude))

    def as_sql(self, compiler, connection, **extra_context):
        raise NotImplementedError("elsewhere a drawn area is checked on the listing")

    def as_postgresql(self, compiler, connection, **extra_context):
        longitude, latitude = (compiler.compile(part) for part in self.get_source_expressions())
        sql = f"poly_contain_pt(polygon::polygon, point({longitude[0]}, {latitude[0]}))"
        return sql, (*longitude[1], *latitude[1])


class WordsIn(Func):
    """Whether every word of a saved search (its `words` column) is in a listing's search
    document, the listing's words read once from its stored document: on PostgreSQL, its
    first word among them, which a btree of first words answers (migration 0009), then
    every word (array containment)."""

    output_field = BooleanField()

    def __init__(self, listing_id: str):
        super().__init__(Value(listing_id))

    def as_sql(self, compiler, connection, **extra_context):
        raise NotImplementedError("only PostgreSQL keeps search documents")

    def as_postgresql(self, compiler, connection, **extra_context):
        [listing_id] = self.get_source_expressions()
        listing_sql, listing_params = compiler.compile(listing_id)
        # The listing's id is a bound parameter: the statement holds no value of its own.
        # The array is made in the sub-select, so that it is made once, not once per row.
        document = (
            "(SELECT tsvector_to_array(search_document) FROM listings_property"  # noqa: S608
            f" WHERE id = {listing_sql})"
        )
        sql = (
            f"(split_part(words, ' ', 1) = ANY({document}::text[])"
            f" AND string_to_array(words, ' ') <@ {document})"
        )
        return sql, (*listing_params, *listing_params)


def _tested_in_sql(database: str) -> bool:
    """Whether the words of plain `q`s and drawn areas are tested in the first statement
    (PostgreSQL); elsewhere a search with either is run on the listing like any checked
    one."""
    return connections[database].vendor == "postgresql"


def _candidates(listing: Property) -> QuerySet[SavedSearch]:
    """The active saved searches whose columns the listing meets: one statement, each of its
    groups from an index. The kind and transaction are keys of the town's, the words' and
    the rest's indexes (KIND_KEY, TRANSACTION_KEY: "" for any), so that each group reads
    only the searches of the listing's kind and transaction, or of any."""
    keys = Q(
        kind_key__in=sorted({"", listing.kind or ""}),
        transaction_key__in=["", listing.transaction_type],
    )
    holds = Q(AreaHolds(listing.longitude, listing.latitude))
    town = Q(town=TownKey(Value(listing.municipality))) & keys & (Q(area_west__isnull=True) | holds)
    area = Q(town__isnull=True, area_west__isnull=False) & holds & keys
    neither = Q(town__isnull=True, area_west__isnull=True, words__isnull=True) & keys
    in_sql = _tested_in_sql(SavedSearch.objects.db)
    if in_sql:
        has = Q(WordsIn(listing.pk))
        words = Q(town__isnull=True, area_west__isnull=True, words__isnull=False) & keys & has
        town &= Q(words__isnull=True) | has
        area &= Q(words__isnull=True) | has
        neither |= words
    else:
        neither |= Q(town__isnull=True, area_west__isnull=True, words__isnull=False) & keys
    # The circle's distance as the search computes it, the listing's point in the place of
    # the search's listings (listings.search.query.haversine_km).
    distance = haversine_km(
        F("circle_latitude"),
        F("circle_longitude"),
        Value(listing.latitude),
        Value(listing.longitude),
    )
    circle = Q(circle_radius_km__isnull=True) | Q(circle_radius_km__gte=distance)
    # Elsewhere a drawn area is checked on the listing (saved_searches_matching).
    polygon = (
        Q(polygon__isnull=True) | Q(PolygonHolds(listing.longitude, listing.latitude))
        if in_sql
        else Q()
    )
    # A listing without bedrooms (land, offices, ...) meets no bedroom criterion.
    bedrooms = Q(min_bedrooms__isnull=True)
    if listing.bedrooms is not None:
        bedrooms |= Q(min_bedrooms__lte=listing.bedrooms)
    return (
        SavedSearch.objects.exclude(frequency=AlertFrequency.PAUSED)
        .alias(kind_key=KIND_KEY, transaction_key=TRANSACTION_KEY)
        .filter(town | area | neither)
        .filter(
            Q(min_price__isnull=True) | Q(min_price__lte=listing.price),
            Q(max_price__isnull=True) | Q(max_price__gte=listing.price),
            bedrooms,
            circle,
            polygon,
        )
    )


class Match(NamedTuple):
    """A saved search a listing matches: its id, its user's and how often it alerts."""

    id: str
    user_id: str
    frequency: str


def saved_searches_matching(*, listing: Property) -> list[Match]:
    """The active (not PAUSED) saved searches whose results hold `listing`, as a visitor
    sees them (none for a listing a visitor does not see): one statement from indexes, and
    two more for those whose criteria say more than their columns, if any. Oldest first.

    Rows, not models: a listing in a large town matches a thousand searches, whose models
    cost more than both statements.
    """
    if listing.status in HIDDEN_STATUSES:
        return []
    in_sql = _tested_in_sql(SavedSearch.objects.db)
    rows = list(
        _candidates(listing)
        .order_by("created_at", "id")
        .values_list("id", "user_id", "frequency", "checked_on_listing", "words", "polygon")
    )
    checked = [
        pk
        for pk, _user, _frequency, more, words, polygon in rows
        if more or ((words or polygon) and not in_sql)
    ]
    refused = set(checked) - _holding(listing, checked)
    return [Match(pk, user, frequency) for pk, user, frequency, *_rest in rows if pk not in refused]


def _holding(listing: Property, saved_search_ids: list[str]) -> set[str]:
    """The ids of those saved searches whose results hold the listing: their criteria read
    (only theirs: decoding every candidate's criteria cost a third of the matching), then
    each one's search run on the listing alone, all in one statement."""
    if not saved_search_ids:
        return set()
    saved_searches = SavedSearch.objects.filter(pk__in=saved_search_ids).values_list(
        "id", "criteria"
    )
    visitor = AnonymousUser()
    parts = [
        search_filtered(viewer=visitor, params=search_params(criteria))
        .filter(pk=listing.pk)
        .values_list(Value(pk), flat=True)
        for pk, criteria in saved_searches.order_by("pk")
    ]
    first, *others = parts
    # A union takes the model's default order again, which its one column cannot give.
    return set(first.union(*others, all=True).order_by()) if others else set(first)
