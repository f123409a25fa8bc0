"""The listings a search matches, in its order, as the viewer may see them (D7, D8).

`search_matches(viewer=..., params=...)` is the one queryset every count and page of a
search reads: the viewer's visible listings (listings.selectors.visible_listing), the
search's conditions applied together in one filter() call, and the search's order.
"""

import math
from dataclasses import replace

from django.conf import settings
from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import connections
from django.db.models import F, FloatField, Q, QuerySet, Value
from django.db.models.functions import ASin, Cos, Power, Radians, Sin, Sqrt
from django.db.models.lookups import Contains

from accounts.models import User
from listings.functions import Folded, InPolygon, TownKey
from listings.models import SEARCH_CONFIG, SEARCH_FIELDS, Property, TransactionType
from listings.search.pages import sorted_after_filtering
from listings.search.params import DEFAULT_ORDER, SORTS, Box, Circle, SearchParams
from listings.search.windows import InRecentSlice, WindowPath, window_path
from listings.selectors import property_visible_to
from listings.text import folded

EARTH_RADIUS_KM = 6371.0088
# About 0.1 m: widens the pre-filter box of a radius search past rounding errors.
BOX_MARGIN_DEGREES = 1e-6


def web_search(text: str) -> SearchQuery:
    """`q` as PostgreSQL reads it: websearch syntax, the configuration of the search document."""
    return SearchQuery(text, config=SEARCH_CONFIG, search_type="websearch")


def longitude_between(west: float, east: float) -> Q:
    """Longitudes from west to east; west > east means the box crosses the antimeridian."""
    if west <= east:
        return Q(longitude__gte=west, longitude__lte=east)
    return Q(longitude__gte=west) | Q(longitude__lte=east)


def within_box(box: Box) -> Q:
    return Q(latitude__gte=box.south, latitude__lte=box.north) & longitude_between(
        box.west, box.east
    )


def haversine_km(center_latitude, center_longitude, latitude, longitude):
    """Great-circle (haversine) distance in km from a circle's center to a point, each
    coordinate an expression. The one formula of radius searches: the search (distance_km)
    and the alerts' matching (notifications.matching) give it the same values in the same
    places, so both compute the same distance to the last bit."""
    half_latitude = Radians(latitude - center_latitude) / 2
    half_longitude = Radians(longitude - center_longitude) / 2
    haversine = Power(Sin(half_latitude), 2) + Cos(Radians(center_latitude)) * Cos(
        Radians(latitude)
    ) * Power(Sin(half_longitude), 2)
    return Value(2 * EARTH_RADIUS_KM, output_field=FloatField()) * ASin(Sqrt(haversine))


def distance_km(latitude: float, longitude: float):
    """Great-circle (haversine) distance from a point to each listing, in km."""
    return haversine_km(Value(latitude), Value(longitude), F("latitude"), F("longitude"))


def circle_box(circle: Circle) -> Box:
    """A box around the circle, west to east (every longitude, -180 to 180, for a circle
    that reaches a pole or spans the globe's width).

    The box must hold the whole circle, on the same sphere as distance_km: the circle spans
    r / R radians of latitude, and at latitude phi it reaches asin(sin(r / R) / cos(phi)) east
    and west, which is wider than r / (R cos(phi)). A circle that reaches a pole spans every
    longitude. BOX_MARGIN_DEGREES keeps points on the circle itself clear of rounding.
    """
    angular_radius = circle.radius_km / EARTH_RADIUS_KM
    latitude_span = math.degrees(angular_radius) + BOX_MARGIN_DEGREES
    south = max(-90.0, circle.latitude - latitude_span)
    north = min(90.0, circle.latitude + latitude_span)
    every_longitude = Box(-180.0, south, 180.0, north)
    if south <= -90 or north >= 90:
        return every_longitude
    reach = math.sin(angular_radius) / math.cos(math.radians(circle.latitude))
    if reach >= 1:
        return every_longitude
    longitude_span = math.degrees(math.asin(reach)) + BOX_MARGIN_DEGREES
    if longitude_span >= 180:
        return every_longitude
    west = (circle.longitude - longitude_span + 180) % 360 - 180
    east = (circle.longitude + longitude_span + 180) % 360 - 180
    return Box(west, south, east, north)


def around_circle(circle: Circle) -> Q:
    """The circle's box (circle_box), so that the (latitude, longitude) indexes narrow the
    rows before the distance is computed."""
    box = circle_box(circle)
    if (box.west, box.east) == (-180.0, 180.0):
        return Q(latitude__gte=box.south, latitude__lte=box.north)
    return within_box(box)


def _text_condition(text: str, database: str) -> Q:
    """`q`: PostgreSQL's full-text search on the stored search document; elsewhere every
    word must appear, accents and case aside, in one of the searched fields."""
    if connections[database].vendor == "postgresql":
        return Q(search_document=web_search(text))
    condition = Q()
    for word in folded(text).split():
        anywhere = Q()
        for field in SEARCH_FIELDS:
            anywhere |= Q(Contains(Folded(F(field)), word))
        condition &= anywhere
    return condition


# The criteria that are one lookup on a column of the listing itself, by SearchParams
# attribute. Property.kind and Property.bedrooms are the listing's copies of its record's:
# no join.
LOOKUPS = {
    "kind": "kind",
    "transaction_type": "transaction_type",
    "min_price": "price__gte",
    "max_price": "price__lte",
    "owner_id": "owner_id",
    "category_id": "category_id",
    "status": "status",
    "min_area": "area__gte",
    "max_area": "area__lte",
    "min_bedrooms": "bedrooms__gte",
}


def seeking_ranges(listings: QuerySet[Property], params: SearchParams) -> QuerySet[Property]:
    """A search's matches as a statement that reads every one of them (a count, a page sorted
    whole) is best given them: where an index holds the transaction between the search's
    other filters and its range, and the search has no transaction, both transactions are
    named, and the index seeks the range once for each. That is a price range with a town
    (listings_prop_pub_town_tx_idx, with a kind too _town_idx) or with a category and a kind
    (_cat_kind_idx), or a bedroom minimum with a kind (_kind_bed_idx).

    Every listing is for rent or for sale (a check constraint), so naming both selects them all;
    PostgreSQL 15 has no skip scan, so without them such an index read every entry of the
    town or kind, or the planner walked the price index: a town's listings between two
    prices were counted in 25 ms (29,775 entries of the price index read for 1,001), 0.9 ms
    seeking. A page walked along its order's index is read without them: pricing the seek
    and a sort against the walk, the planner chose the seek where the walk found the page at
    once (offices of a category between two prices, newest first: 21 ms against 0.3 ms).
    """
    if params.transaction_type is not None:
        return listings
    prices = params.min_price is not None or params.max_price is not None
    seeks = (
        (prices and params.municipality is not None)
        or (prices and params.category_id is not None and params.kind is not None)
        or (params.min_bedrooms is not None and params.kind is not None)
    )
    return listings.filter(transaction_type__in=TransactionType.values) if seeks else listings


def _conditions(params: SearchParams, database: str) -> list[Q]:
    """The search's conditions, one for each criterion it has."""
    conditions = [
        Q(**{lookup: getattr(params, attribute)})
        for attribute, lookup in LOOKUPS.items()
        if getattr(params, attribute) is not None
    ]
    if params.municipality is not None:
        # lower(municipality) = lower(value): served by the lower(municipality) indexes.
        conditions.append(Q(municipality_lower=params.municipality.lower()))
    if params.text:
        conditions.append(_text_condition(params.text, database))
    if params.box is not None:
        conditions.append(within_box(params.box))
    if params.circle is not None:
        conditions.append(around_circle(params.circle))
    if params.polygon is not None:
        # The area's bounding box, which the box indexes of public listings answer; its
        # points are then tested against the area (listings.functions.InPolygon).
        conditions.append(within_box(Box(*params.polygon.bounds())))
        conditions.append(Q(InPolygon(params.polygon)))
    return conditions


def search_filtered(*, viewer: User, params: SearchParams) -> QuerySet[Property]:
    """The listings the viewer may see that match the search, in no particular order (every
    match: a text search's rank window is an order's, not a filter's)."""
    listings = property_visible_to(viewer=viewer)
    if params.municipality is not None:
        listings = listings.alias(municipality_lower=TownKey("municipality"))
    listings = listings.filter(*_conditions(params, listings.db))
    if params.circle is not None:
        circle = params.circle
        listings = listings.alias(distance=distance_km(circle.latitude, circle.longitude)).filter(
            distance__lte=circle.radius_km
        )
    return listings.order_by()


def search_matches(*, viewer: User, params: SearchParams) -> QuerySet[Property]:
    """The listings the viewer may see that match the search, in the search's order."""
    return in_search_order(search_filtered(viewer=viewer, params=params), params)


def in_search_order(listings: QuerySet[Property], params: SearchParams) -> QuerySet[Property]:
    """A search's matches (search_filtered) in its order."""
    if params.sort:
        return listings.order_by(*SORTS[params.sort])
    if ranks(params, listings.db):
        return ranked_window(listings, params.text)
    return listings.order_by(*DEFAULT_ORDER)


def ranks(params: SearchParams, database: str) -> bool:
    """Whether the search is ordered by relevance (`q` without `sort`, on PostgreSQL): its
    matches are then its newest SEARCH_RANK_WINDOW (ranked_window)."""
    return bool(params.text) and not params.sort and connections[database].vendor == "postgresql"


def relevance(text: str) -> SearchRank:
    """How well a listing's search document matches `text`: a relevance search's order."""
    return SearchRank(F("search_document"), web_search(text))


def newest_first(matches: QuerySet[Property], path: WindowPath) -> QuerySet[Property]:
    """The matches newest first, as a relevance search's window is taken from them
    (ranked_window): walking the date index, or sorting them, or those of a recent slice
    (listings.search.windows)."""
    if path.since is not None:
        return sorted_after_filtering(
            matches.filter(InRecentSlice(path.since)).order_by(*DEFAULT_ORDER)
        )
    newest = matches.order_by(*DEFAULT_ORDER)
    return sorted_after_filtering(newest) if path.sorts else newest


def ranked_window(matches: QuerySet[Property], text: str) -> QuerySet[Property]:
    """The newest SEARCH_RANK_WINDOW `matches`, best match for `text` first, then newest.

    Ranking every match of a common word reads and scores a large part of the table (0.35 s
    for a word in one listing in six at 1,000,000 listings); the newest matches come from
    the date index, checked against the stored search document, or, when they are few, by
    sorting them (newest_first), and only they are ranked. Like a search engine's result
    window, older matches are reached with `sort` or narrower filters (docs/api.md). A page
    of it is read in one pass over the window instead (scored_windows).
    """
    size = settings.SEARCH_RANK_WINDOW
    path = window_path(matches, window=size, slices=False)
    window = newest_first(matches, path).values("pk")[:size]
    return (
        Property.objects.filter(pk__in=window)
        .alias(rank=relevance(text))
        .order_by("-rank", *DEFAULT_ORDER)
    )


def scored_windows(matches: QuerySet[Property], text: str) -> list[QuerySet]:
    """ranked_window's listings as (id, created_at, relevance) rows, newest first, each
    scored as it is read: what a page of a relevance search is sorted from
    (listings.search.pages.ranked_page_ids), without reading the window's listings again
    to score them.

    One queryset, or two: the window among a recent slice of the listings, then among
    every listing (listings.search.windows); the first that holds a full window is the
    search's.
    """
    size = settings.SEARCH_RANK_WINDOW
    path = window_path(matches, window=size)
    paths = [path, replace(path, since=None)] if path.since is not None else [path]
    return [
        newest_first(matches, each).values_list("pk", "created_at", relevance(text))[:size]
        for each in paths
    ]
