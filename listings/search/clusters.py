"""Map clusters: a search's listings counted in the cells of a grid, so that a map zoomed out
over a country draws a few hundred clusters instead of a million markers.

    clusters = listing_clusters(viewer=user, params=params, zoom=6)

The grid is square in degrees, and its cells are as wide as a quarter of a map tile at the
map's zoom (a web map's tile is 256 pixels and 360 / 2**zoom degrees wide): about 64 pixels,
the spacing of clusters on a portal's map. A listing lies in the cell
(floor(longitude / size), floor(latitude / size)); each cell that holds listings is one
cluster with its count, the bounds and mean point of its listings and its lowest price.
Every match of the search is in exactly one cell, so the clusters' counts add up to the
search's total (every match, counted exactly). A visitor's search on its transaction, kind
and box alone is added up, on PostgreSQL, from grid cells the database keeps
(listings.search.cells); any other is grouped from its matches.

A request whose box (the world without `bbox`) spans more than MAX_CLUSTER_CELLS cells at
its zoom is refused: zoom out, or send the map's box.
"""

import math
from dataclasses import dataclass, replace
from decimal import Decimal

from django.db import connections
from django.utils.translation import gettext

from accounts.models import User
from listings.cache import public_read
from listings.search.cells import cell_size, celled_search, celled_totals, grouped_listings
from listings.search.params import Refusal, SearchParams, SearchParamsInvalid
from listings.search.plans import planned_for_its_values
from listings.search.query import search_filtered
from listings.selectors import viewer_sees_only_public

MAX_ZOOM = 22
MAX_CLUSTER_CELLS = 10_000


@dataclass(frozen=True, slots=True)
class Cluster:
    """The matches of one grid cell."""

    count: int
    # The bounds of its listings: west, south, east, north.
    west: float
    south: float
    east: float
    north: float
    # Their mean point, where the map draws the cluster.
    latitude: float
    longitude: float
    lowest_price: Decimal


@dataclass(frozen=True, slots=True)
class Clusters:
    zoom: int
    cell_size: float
    # Most listings first, then by cell (south to north, west to east).
    clusters: list[Cluster]

    @property
    def total(self) -> int:
        return sum(cluster.count for cluster in self.clusters)


def _cells_across(params: SearchParams, size: float) -> int:
    """How many cells the request's box spans (the world without one)."""
    if params.box is None:
        west, south, east, north = -180.0, -90.0, 180.0, 90.0
    else:
        box = params.box
        west, south, north = box.west, box.south, box.north
        # A box across the antimeridian ends past 180.
        east = box.east if box.west <= box.east else box.east + 360
    columns = math.floor(east / size) - math.floor(west / size) + 1
    rows = math.floor(north / size) - math.floor(south / size) + 1
    return columns * rows


def check_cluster_grid(*, params: SearchParams, zoom: int) -> None:
    """SearchParamsInvalid (on `zoom`) when the request's grid has too many cells."""
    cells = _cells_across(params, cell_size(zoom))
    if cells > MAX_CLUSTER_CELLS:
        message = gettext(
            "zoom %(zoom)s cuts this area into %(cells)s cells, more than %(limit)s: zoom out,"
            " or send the map's bbox."
        ) % {"zoom": zoom, "cells": cells, "limit": MAX_CLUSTER_CELLS}
        raise SearchParamsInvalid({"zoom": [Refusal(message, "max_value")]})


def _clusters(*, viewer: User, params: SearchParams, zoom: int) -> Clusters:
    listings = search_filtered(viewer=viewer, params=params)
    celled = celled_search(params, zoom) if viewer_sees_only_public(viewer) else None
    with planned_for_its_values(listings.db):
        if celled is not None and connections[listings.db].vendor == "postgresql":
            totals = celled_totals(celled, zoom, database=listings.db)
        else:
            totals = grouped_listings(listings, zoom)
    order = sorted(totals, key=lambda key: (-totals[key].count, key))
    clusters = [
        Cluster(
            count=totals[key].count,
            west=totals[key].west,
            south=totals[key].south,
            east=totals[key].east,
            north=totals[key].north,
            latitude=totals[key].latitude_sum / totals[key].count,
            longitude=totals[key].longitude_sum / totals[key].count,
            lowest_price=totals[key].lowest_price,
        )
        for key in order
    ]
    return Clusters(zoom=zoom, cell_size=cell_size(zoom), clusters=clusters)


def listing_clusters(*, viewer: User, params: SearchParams, zoom: int) -> Clusters:
    """The search's matches that the viewer may see, in the cells of the zoom's grid.

    The search's order (`sort`) does not matter here. Raises SearchParamsInvalid (on `zoom`)
    when the grid has too many cells."""
    check_cluster_grid(params=params, zoom=zoom)
    if not viewer_sees_only_public(viewer):
        return _clusters(viewer=viewer, params=params, zoom=zoom)
    # Every visitor and customer sees the same public listings: one answer for them all.
    return public_read(
        ("clusters", replace(params, sort=None), zoom),
        lambda: _clusters(viewer=viewer, params=params, zoom=zoom),
    )
