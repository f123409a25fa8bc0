"""GET /properties/clusters: a search's listings counted in the cells of a map grid.

The answers are compared with a reference written from docs/api.md's rule (a listing lies in
the cell floor(lng / size), floor(lat / size), size = 90 / 2^zoom degrees) over generated
listings, and their counts with the list's totalItems for the same search.
"""

import math
import random
from collections import defaultdict
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from listings.models import Property, PropertyStatus, TransactionType
from tests.factories import ListingFactory
from tests.properties.support import PROPERTIES_URL, assert_validation_error

pytestmark = pytest.mark.django_db

CLUSTERS_URL = "/api/v1/properties/clusters"
PUBLIC = (PropertyStatus.AVAILABLE, PropertyStatus.SOLD, PropertyStatus.RENTED)
# Town centres (latitude, longitude) the generated listings gather round; the last straddles
# the antimeridian.
CENTRES = ((40.4168, -3.7038), (41.3851, 2.1734), (36.7213, -4.4214), (-16.85, 179.97))


def clusters_of(client, **query) -> dict:
    response = client.get(CLUSTERS_URL, query)
    assert response.status_code == 200, response.content
    return response.json()


def generate_listings(rng: random.Random, count: int, owner_record=None) -> list[Property]:
    listings = []
    for number in range(count):
        latitude, longitude = rng.choice(CENTRES)
        longitude = longitude + rng.uniform(-0.6, 0.6)
        longitude = (longitude + 180) % 360 - 180
        fields = {
            "latitude": round(latitude + rng.uniform(-0.6, 0.6), 6),
            "longitude": round(longitude, 6),
            "price": Decimal(rng.choice(("450", "800.50", "120000", "250000", "99999.99"))),
            "transaction_type": rng.choice(TransactionType.values),
            "status": rng.choice([*PUBLIC, PropertyStatus.PENDING, PropertyStatus.SUSPENDED]),
        }
        if owner_record is not None and number % 3 == 0:
            fields["owner"] = owner_record
        listings.append(ListingFactory(**fields))
    return listings


def reference_clusters(listings, zoom: int) -> list[dict]:
    """The cells of the listings at this zoom, as the API words them, in its order."""
    size = 90 / 2**zoom
    cells: dict[tuple[int, int], list[Property]] = defaultdict(list)
    for listing in listings:
        cells[(math.floor(listing.latitude / size), math.floor(listing.longitude / size))].append(
            listing
        )
    clusters = []
    for (row, column), members in cells.items():
        clusters.append(
            {
                "key": (-len(members), row, column),
                "count": len(members),
                "bounds": {
                    "west": min(member.longitude for member in members),
                    "south": min(member.latitude for member in members),
                    "east": max(member.longitude for member in members),
                    "north": max(member.latitude for member in members),
                },
                "lowestPrice": float(min(member.price for member in members)),
                "latitude": sum(member.latitude for member in members) / len(members),
                "longitude": sum(member.longitude for member in members) / len(members),
            }
        )
    clusters.sort(key=lambda cluster: cluster.pop("key"))
    return clusters


def assert_clusters_are(body: dict, expected: list[dict], zoom: int) -> None:
    assert set(body) == {"zoom", "cellSize", "totalItems", "clusters"}
    assert body["zoom"] == zoom
    assert body["cellSize"] == 90 / 2**zoom
    assert body["totalItems"] == sum(cluster["count"] for cluster in expected)
    got = body["clusters"]
    # Means are sums of floats added in the database's order: equal to a rounding error.
    assert [
        {**cluster, "latitude": pytest.approx(cluster["latitude"], abs=1e-9)}
        | {"longitude": pytest.approx(cluster["longitude"], abs=1e-9)}
        for cluster in expected
    ] == got


def public(listings) -> list[Property]:
    return [listing for listing in listings if listing.status in PUBLIC]


def in_box(listing: Property, bbox: str) -> bool:
    west, south, east, north = (float(part) for part in bbox.split(","))
    if not south <= listing.latitude <= north:
        return False
    if west <= east:
        return west <= listing.longitude <= east
    return listing.longitude >= west or listing.longitude <= east


@pytest.mark.parametrize(
    ("zoom", "bbox"),
    [
        (0, None),
        (3, None),
        # From Spain east round the world past the antimeridian.
        (6, "-5,-18,-179,42"),
        (9, "-4.4,39.8,-3,41.1"),
        (12, "-4.4,39.8,-3,41.1"),
    ],
)
def test_clusters_are_the_reference_cells_of_every_public_listing(anonymous_client, zoom, bbox):
    # given
    listings = generate_listings(random.Random(zoom), 60)
    expected = [listing for listing in public(listings) if bbox is None or in_box(listing, bbox)]
    assert expected

    # when
    body = clusters_of(anonymous_client, zoom=zoom, **({"bbox": bbox} if bbox else {}))

    # then
    assert_clusters_are(body, reference_clusters(expected, zoom), zoom)
    if zoom == 6:
        assert len(expected) == len(public(listings))


SEARCHES = [
    {"transactionType": "SALE"},
    {"maxPrice": "1000", "transactionType": "RENT"},
    {"bbox": "-4.5,40,2.5,42"},
    {"bbox": "179.5,-17.5,-179.5,-16"},
    {"polygon": "-4.4,40,-3,40,-3,41,-4.4,41,-4.4,40"},
    {"lat": "41.3851", "lng": "2.1734", "radiusKm": "40"},
    {"municipality": "madrid", "minPrice": "1000"},
    {"status": "SOLD", "sort": "price"},
]


@pytest.mark.parametrize("search", SEARCHES, ids=lambda search: ",".join(search))
def test_clusters_add_up_to_the_list_total_of_the_same_search(anonymous_client, search):
    # given
    generate_listings(random.Random(7), 80)
    total = anonymous_client.get(PROPERTIES_URL, {**search, "limit": 100}).json()["totalItems"]
    listed = [
        item["id"]
        for page in range(1, math.ceil(total / 100) + 1)
        for item in anonymous_client.get(
            PROPERTIES_URL, {**search, "limit": 100, "page": page}
        ).json()["properties"]
    ]

    # when
    body = clusters_of(anonymous_client, zoom=5, **search)

    # then the cells hold exactly the listed listings
    assert body["totalItems"] == total == len(listed)
    assert_clusters_are(body, reference_clusters(Property.objects.filter(pk__in=listed), 5), 5)


def test_an_owner_sees_their_hidden_listings_in_the_clusters(
    anonymous_client, owner_client, owner_record
):
    # given
    listings = generate_listings(random.Random(3), 45, owner_record)
    theirs = [
        listing
        for listing in listings
        if listing.status in PUBLIC or listing.owner_id == owner_record.pk
    ]
    assert len(theirs) > len(public(listings))

    # when
    as_owner = clusters_of(owner_client, zoom=4)
    as_visitor = clusters_of(anonymous_client, zoom=4)

    # then
    assert_clusters_are(as_owner, reference_clusters(theirs, 4), 4)
    assert_clusters_are(as_visitor, reference_clusters(public(listings), 4), 4)


def test_no_match_is_no_cluster(anonymous_client):
    # given
    ListingFactory(latitude=40.4, longitude=-3.7)

    # when
    body = clusters_of(anonymous_client, zoom=10, bbox="10,30,11,31")

    # then
    assert body == {"zoom": 10, "cellSize": 90 / 1024, "totalItems": 0, "clusters": []}


# A clusters request: on PostgreSQL, a transaction of its own that plans for its values
# (savepoint, setting, release), the stored cells inside the view and the four strips
# along its edges (listings.search.cells); elsewhere one grouping of the matches.
MAX_QUERIES = 8


@pytest.mark.parametrize("bbox", [None, "-10,35,5,44"])
def test_clusters_cost_the_same_few_queries_for_1_and_for_40_listings(anonymous_client, bbox):
    # given one listing, and the queries of its clusters
    query = {"zoom": 5, **({"bbox": bbox} if bbox else {})}
    generate_listings(random.Random(1), 1)
    with CaptureQueriesContext(connection) as for_one:
        clusters_of(anonymous_client, **query)

    # when there are forty
    generate_listings(random.Random(40), 39)
    with CaptureQueriesContext(connection) as for_forty:
        body = clusters_of(anonymous_client, **query)

    # then the same few queries answer
    assert body["totalItems"] == len(
        [
            listing
            for listing in public(Property.objects.all())
            if bbox is None or in_box(listing, bbox)
        ]
    )
    assert len(for_forty.captured_queries) == len(for_one.captured_queries) <= MAX_QUERIES


@pytest.mark.parametrize(
    ("query", "fields"),
    [
        ({}, {"zoom"}),
        ({"zoom": ""}, {"zoom"}),
        ({"zoom": "x"}, {"zoom"}),
        ({"zoom": "-1"}, {"zoom"}),
        ({"zoom": "23"}, {"zoom"}),
        ({"zoom": "2.5"}, {"zoom"}),
        ({"zoom": "5", "bbox": "1,2,3"}, {"bbox"}),
        ({"zoom": "x", "minPrice": "-1"}, {"zoom", "minPrice"}),
        ({"zoom": "5", "polygon": "1,2,3,4"}, {"polygon"}),
    ],
)
def test_a_refused_parameter_is_400_naming_each(anonymous_client, query, fields):
    # given
    ListingFactory()

    # when
    response = anonymous_client.get(CLUSTERS_URL, query)

    # then
    assert_validation_error(response, *fields)


@pytest.mark.parametrize(
    ("query", "cells"),
    [
        # The world at zoom 6: 257 x 129 cells of 1.40625 degrees (its edges are cells too).
        ({"zoom": "6"}, 257 * 129),
        # Spain's box at zoom 12: cells of 0.02197 degrees.
        ({"zoom": "12", "bbox": "-9.5,36,3.5,44"}, 593 * 365),
    ],
)
def test_a_grid_of_more_than_ten_thousand_cells_is_400_on_zoom(anonymous_client, query, cells):
    # when
    response = anonymous_client.get(CLUSTERS_URL, query)

    # then
    body = assert_validation_error(response, "zoom")
    assert body["errors"][0]["message"] == (
        f"zoom {query['zoom']} cuts this area into {cells} cells, more than 10000:"
        " zoom out, or send the map's bbox."
    )


def test_a_city_box_at_street_zoom_is_answered(anonymous_client):
    # given
    listing = ListingFactory(latitude=40.41, longitude=-3.70, price="1234.50")

    # when
    body = clusters_of(anonymous_client, zoom=16, bbox="-3.72,40.40,-3.68,40.42")

    # then
    assert body["clusters"] == [
        {
            "count": 1,
            "latitude": 40.41,
            "longitude": -3.70,
            "bounds": {"west": -3.70, "south": 40.41, "east": -3.70, "north": 40.41},
            "lowestPrice": 1234.5,
        }
    ]
    assert listing.status == PropertyStatus.AVAILABLE
