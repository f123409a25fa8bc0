"""Map searches of GET /properties: bbox and lat + lng + radiusKm (decisions D8)."""

import math

import pytest

from tests.factories import ListingFactory
from tests.properties.support import PROPERTIES_URL, assert_validation_error, ids

pytestmark = pytest.mark.django_db

EARTH_RADIUS_KM = 6371.0088


def north_of(latitude: float, kilometres: float) -> float:
    """The latitude `kilometres` north along a meridian (negative: south)."""
    return latitude + math.degrees(kilometres / EARTH_RADIUS_KM)


def east_of(latitude: float, longitude: float, kilometres: float) -> float:
    """The longitude, on the same parallel, at a great-circle distance of `kilometres` east."""
    half_angle = math.sin(kilometres / (2 * EARTH_RADIUS_KM)) / math.cos(math.radians(latitude))
    longitude += math.degrees(2 * math.asin(half_angle))
    return (longitude + 180) % 360 - 180


def listings_at(points: dict[str, tuple[float, float]]) -> dict[str, str]:
    """One listing per named (latitude, longitude); their ids by name."""
    return {
        name: ListingFactory(latitude=latitude, longitude=longitude).id
        for name, (latitude, longitude) in points.items()
    }


def found_names(client, parameters: dict, listing_ids: dict[str, str]) -> set[str]:
    response = client.get(PROPERTIES_URL, {**parameters, "limit": 100})
    assert response.status_code == 200, response.content
    names = {listing_id: name for name, listing_id in listing_ids.items()}
    return {names[listing_id] for listing_id in ids(response)}


# --- bbox -------------------------------------------------------------------------------


def test_bbox_keeps_listings_just_inside_and_drops_those_just_outside(anonymous_client):
    # given a box from (40, -4) to (41, -3)
    listing_ids = listings_at(
        {
            "inside south edge": (40.001, -3.5),
            "inside north edge": (40.999, -3.5),
            "inside west edge": (40.5, -3.999),
            "inside east edge": (40.5, -3.001),
            "on the south west corner": (40.0, -4.0),
            "on the north east corner": (41.0, -3.0),
            "outside south": (39.999, -3.5),
            "outside north": (41.001, -3.5),
            "outside west": (40.5, -4.001),
            "outside east": (40.5, -2.999),
        }
    )

    # when
    found = found_names(anonymous_client, {"bbox": "-4,40,-3,41"}, listing_ids)

    # then
    assert found == {
        "inside south edge",
        "inside north edge",
        "inside west edge",
        "inside east edge",
        "on the south west corner",
        "on the north east corner",
    }


def test_bbox_crossing_the_antimeridian(anonymous_client):
    # given a box from longitude 170 eastwards to -170, latitudes -10 to 10
    listing_ids = listings_at(
        {
            "at 179": (0.0, 179.0),
            "at -179": (0.0, -179.0),
            "at 180": (5.0, 180.0),
            "at -180": (-5.0, -180.0),
            "at 170.001": (1.0, 170.001),
            "at -170.001": (1.0, -170.001),
            "at 0": (0.0, 0.0),
            "at 169.999": (0.0, 169.999),
            "at -169.999": (0.0, -169.999),
            "north of the box": (10.001, 179.0),
        }
    )

    # when
    found = found_names(anonymous_client, {"bbox": "170,-10,-170,10"}, listing_ids)

    # then
    assert found == {"at 179", "at -179", "at 180", "at -180", "at 170.001", "at -170.001"}


def test_bbox_combines_with_other_filters(anonymous_client):
    # given
    cheap = ListingFactory(latitude=40.5, longitude=-3.5, price="1000.00")
    ListingFactory(latitude=40.5, longitude=-3.5, price="9000.00")
    ListingFactory(latitude=42.5, longitude=-3.5, price="1000.00")

    # when
    response = anonymous_client.get(PROPERTIES_URL, {"bbox": "-4,40,-3,41", "maxPrice": "2000"})

    # then
    assert ids(response) == [cheap.id]


@pytest.mark.parametrize(
    "bbox",
    [
        "-4,40,-3",
        "-4,40,-3,41,5",
        "a,b,c,d",
        "-4,40,-3,north",
        "-4,-91,-3,41",
        "-4,40,-3,90.5",
        "-181,40,-3,41",
        "-4,40,181,41",
        "-4,41,-3,40",
        "nan,40,-3,41",
        "-4,40,inf,41",
    ],
)
def test_malformed_bbox_is_400_naming_bbox(anonymous_client, bbox):
    # given
    ListingFactory()

    # when
    response = anonymous_client.get(PROPERTIES_URL, {"bbox": bbox})

    # then
    assert_validation_error(response, "bbox")


# --- lat + lng + radiusKm -------------------------------------------------------------


RADIUS_KM = 50.0
CENTRE = (40.0, -3.0)


def test_radius_keeps_listings_just_inside_along_a_meridian(anonymous_client):
    # given
    latitude, longitude = CENTRE
    listing_ids = listings_at(
        {
            "centre": CENTRE,
            "north at 0.99 r": (north_of(latitude, 0.99 * RADIUS_KM), longitude),
            "north at 0.999 r": (north_of(latitude, 0.999 * RADIUS_KM), longitude),
            "south at 0.99 r": (north_of(latitude, -0.99 * RADIUS_KM), longitude),
            "south at 0.999 r": (north_of(latitude, -0.999 * RADIUS_KM), longitude),
            "north at 1.01 r": (north_of(latitude, 1.01 * RADIUS_KM), longitude),
            "south at 1.01 r": (north_of(latitude, -1.01 * RADIUS_KM), longitude),
        }
    )
    parameters = {"lat": latitude, "lng": longitude, "radiusKm": RADIUS_KM}

    # when
    found = found_names(anonymous_client, parameters, listing_ids)

    # then
    assert found == {
        "centre",
        "north at 0.99 r",
        "north at 0.999 r",
        "south at 0.99 r",
        "south at 0.999 r",
    }


def test_radius_keeps_listings_just_inside_along_a_parallel(anonymous_client):
    # given
    latitude, longitude = CENTRE
    listing_ids = listings_at(
        {
            "east at 0.99 r": (latitude, east_of(latitude, longitude, 0.99 * RADIUS_KM)),
            "east at 0.999 r": (latitude, east_of(latitude, longitude, 0.999 * RADIUS_KM)),
            "west at 0.999 r": (latitude, east_of(latitude, longitude, -0.999 * RADIUS_KM)),
            "east at 1.01 r": (latitude, east_of(latitude, longitude, 1.01 * RADIUS_KM)),
            "west at 1.01 r": (latitude, east_of(latitude, longitude, -1.01 * RADIUS_KM)),
        }
    )
    parameters = {"lat": latitude, "lng": longitude, "radiusKm": RADIUS_KM}

    # when
    found = found_names(anonymous_client, parameters, listing_ids)

    # then
    assert found == {"east at 0.99 r", "east at 0.999 r", "west at 0.999 r"}


@pytest.mark.parametrize("latitude", [60.0, 75.0, -70.0])
def test_radius_at_high_latitudes_keeps_listings_just_inside_along_a_parallel(
    anonymous_client, latitude
):
    # given
    longitude = 10.0
    listing_ids = listings_at(
        {
            "east at 0.999 r": (latitude, east_of(latitude, longitude, 0.999 * RADIUS_KM)),
            "east at 1.01 r": (latitude, east_of(latitude, longitude, 1.01 * RADIUS_KM)),
        }
    )
    parameters = {"lat": latitude, "lng": longitude, "radiusKm": RADIUS_KM}

    # when
    found = found_names(anonymous_client, parameters, listing_ids)

    # then
    assert found == {"east at 0.999 r"}


def test_radius_across_the_antimeridian(anonymous_client):
    # given a circle of 50 km around (0, 179.9)
    listing_ids = listings_at(
        {
            "at -179.8 (33 km)": (0.0, -179.8),
            "at 179.6 (33 km)": (0.0, 179.6),
            "at -179.5 (67 km)": (0.0, -179.5),
            "at 179.4 (56 km)": (0.0, 179.4),
        }
    )
    parameters = {"lat": 0, "lng": 179.9, "radiusKm": RADIUS_KM}

    # when
    found = found_names(anonymous_client, parameters, listing_ids)

    # then
    assert found == {"at -179.8 (33 km)", "at 179.6 (33 km)"}


def test_radius_near_a_pole_reaches_across_it(anonymous_client):
    # given a circle of 50 km around (89.9, 0): the pole is 11 km away
    listing_ids = listings_at(
        {
            "across the pole (22 km)": (89.9, 180.0),
            "beside the centre": (89.9, 90.0),
            "too far south": (89.4, 0.0),
        }
    )
    parameters = {"lat": 89.9, "lng": 0, "radiusKm": RADIUS_KM}

    # when
    found = found_names(anonymous_client, parameters, listing_ids)

    # then
    assert found == {"across the pole (22 km)", "beside the centre"}


def test_radius_of_the_maximum_500_km(anonymous_client):
    # given
    latitude, longitude = CENTRE
    listing_ids = listings_at(
        {
            "at 499 km": (north_of(latitude, 499), longitude),
            "at 505 km": (north_of(latitude, 505), longitude),
        }
    )

    # when
    found = found_names(
        anonymous_client, {"lat": latitude, "lng": longitude, "radiusKm": 500}, listing_ids
    )

    # then
    assert found == {"at 499 km"}


def test_radius_combines_with_bbox(anonymous_client):
    # given
    latitude, longitude = CENTRE
    listing_ids = listings_at(
        {
            "north inside both": (north_of(latitude, 10), longitude),
            "south outside the box": (north_of(latitude, -10), longitude),
            "north outside the circle": (north_of(latitude, 60), longitude),
        }
    )
    parameters = {"lat": latitude, "lng": longitude, "radiusKm": RADIUS_KM, "bbox": "-4,40,-2,41"}

    # when
    found = found_names(anonymous_client, parameters, listing_ids)

    # then
    assert found == {"north inside both"}


@pytest.mark.parametrize(
    ("parameters", "fields"),
    [
        ({"lat": 40}, {"lng", "radiusKm"}),
        ({"lng": -3}, {"lat", "radiusKm"}),
        ({"radiusKm": 10}, {"lat", "lng"}),
        ({"lat": 40, "lng": -3}, {"radiusKm"}),
        ({"lat": 40, "radiusKm": 10}, {"lng"}),
        ({"lat": 40, "lng": -3, "radiusKm": 500.01}, {"radiusKm"}),
        ({"lat": 40, "lng": -3, "radiusKm": 501}, {"radiusKm"}),
        ({"lat": 40, "lng": -3, "radiusKm": -1}, {"radiusKm"}),
        ({"lat": 40, "lng": -3, "radiusKm": "far"}, {"radiusKm"}),
        ({"lat": 91, "lng": -3, "radiusKm": 10}, {"lat"}),
        ({"lat": 40, "lng": -181, "radiusKm": 10}, {"lng"}),
        ({"lat": "north", "lng": -3, "radiusKm": 10}, {"lat"}),
        ({"lat": "nan", "lng": -3, "radiusKm": 10}, {"lat"}),
        ({"lat": 40, "lng": -3, "radiusKm": "inf"}, {"radiusKm"}),
    ],
)
def test_invalid_radius_search_is_400_naming_each_wrong_parameter(
    anonymous_client, parameters, fields
):
    # given
    ListingFactory()

    # when
    response = anonymous_client.get(PROPERTIES_URL, parameters)

    # then
    assert_validation_error(response, *fields)


# --- polygon ----------------------------------------------------------------------------


def ring(*points: tuple[float, float]) -> str:
    """A closed polygon parameter from (longitude, latitude) vertices."""
    closed = [*points, points[0]]
    return ",".join(f"{number}" for point in closed for number in point)


# An L-shaped area: the square from (-4, 40) to (-2, 42) without its north east quarter.
L_SHAPE = ring((-4, 40), (-2, 40), (-2, 41), (-3, 41), (-3, 42), (-4, 42))


def test_polygon_keeps_listings_inside_and_on_its_edges_and_drops_the_notch(anonymous_client):
    # given (latitude, longitude)
    listing_ids = listings_at(
        {
            "inside the foot": (40.5, -2.5),
            "inside the stem": (41.5, -3.5),
            "on a vertex": (40.0, -4.0),
            "on the inner corner": (41.0, -3.0),
            "on an edge": (40.0, -3.0),
            "in the notch": (41.5, -2.5),
            "just past an edge": (39.999, -3.0),
            "outside the bounds": (43.0, -3.5),
        }
    )

    # when
    found = found_names(anonymous_client, {"polygon": L_SHAPE}, listing_ids)

    # then
    assert found == {
        "inside the foot",
        "inside the stem",
        "on a vertex",
        "on the inner corner",
        "on an edge",
    }


def test_polygon_combines_with_bbox_and_other_filters(anonymous_client):
    # given
    wanted = ListingFactory(latitude=40.5, longitude=-3.5, price="1000.00")
    ListingFactory(latitude=40.5, longitude=-3.5, price="9000.00")
    ListingFactory(latitude=40.5, longitude=-2.5, price="1000.00")
    ListingFactory(latitude=41.5, longitude=-2.5, price="1000.00")

    # when
    response = anonymous_client.get(
        PROPERTIES_URL, {"polygon": L_SHAPE, "bbox": "-4,40,-3,41", "maxPrice": "2000"}
    )

    # then
    assert ids(response) == [wanted.id]
    assert response.json()["totalItems"] == 1


def test_polygon_of_a_hundred_vertices_is_searched(anonymous_client):
    # given a circle-like area of 100 vertices, 1 degree round (40, -3)
    vertices = [
        (-3 + math.cos(2 * math.pi * i / 100), 40 + math.sin(2 * math.pi * i / 100))
        for i in range(100)
    ]
    listing_ids = listings_at({"centre": (40.0, -3.0), "outside": (41.2, -3.0)})

    # when
    found = found_names(anonymous_client, {"polygon": ring(*vertices)}, listing_ids)

    # then
    assert found == {"centre"}


@pytest.mark.parametrize(
    ("polygon", "message"),
    [
        ("-4,40,-3,40,-3,41", "polygon must be closed: its last point repeats its first."),
        ("-4,40,-3,40,-3,41,-4", "polygon is pairs of numbers, lng,lat: one number is alone."),
        ("-4,40,-3,40,-4,40", "polygon needs at least 3 vertices."),
        ("a,40,-3,40,-3,41,a,40", "polygon must hold numbers: lng,lat,lng,lat,..."),
        ("-4,40,-3,40,nan,41,-4,40", "polygon must hold finite numbers."),
        ("-4,40,-3,40,-3,91,-4,40", "polygon latitudes must be within -90..90."),
        ("-4,40,181,40,-3,41,-4,40", "polygon longitudes must be within -180..180."),
        # A bow tie: its edges cross.
        (
            ring((-4, 40), (-3, 41), (-3, 40), (-4, 41)),
            "polygon crosses itself: draw an area whose edges never meet.",
        ),
        # A figure of eight touching itself at one point.
        (
            ring((-4, 40), (-3, 40), (-2, 41), (-1, 41), (-1, 40), (-2, 40), (-3, 41)),
            "polygon crosses itself: draw an area whose edges never meet.",
        ),
        # A spike going back along its own edge.
        (
            ring((-4, 40), (-2, 40), (-3, 40), (-3, 41)),
            "polygon crosses itself: two edges overlap.",
        ),
        (
            ring((-4, 40), (-3, 40), (-3, 40), (-3, 41)),
            "polygon repeats a vertex: an edge has no length.",
        ),
        # No area: its third edge goes back along the first two.
        (ring((-4, 40), (-3, 41), (-2, 42)), "polygon crosses itself: two edges overlap."),
        (
            ring((-40, 10), (10, 10), (10, 20)),
            "polygon may span at most 45 degrees each way: draw a smaller area.",
        ),
        (
            ring(*[(-3 + math.cos(i / 16), 40 + math.sin(i / 16)) for i in range(101)]),
            "polygon may have at most 100 vertices.",
        ),
    ],
)
def test_malformed_polygon_is_400_saying_why(anonymous_client, polygon, message):
    # given
    ListingFactory(latitude=40.5, longitude=-3.5)

    # when
    response = anonymous_client.get(PROPERTIES_URL, {"polygon": polygon})

    # then
    body = assert_validation_error(response, "polygon")
    assert [error["message"] for error in body["errors"]] == [message]
