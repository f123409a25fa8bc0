"""The saved searches a listing matches (notifications.matching) equal running every saved
search on every listing, on both databases.

The saved searches are the criteria of the search equality test's searches (its catalogue
of listings, towns, prices, kinds, map areas, drawn areas, circles and words), each saved by
a customer, some of them PAUSED; the reference runs each saved search once, as the API's
search does for a visitor, and notes which listings it holds.
"""

import random

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import transaction

from listings.models import Property, PropertyStatus
from listings.search import search_params
from listings.search.query import search_filtered
from notifications.matching import saved_searches_matching
from notifications.models import AlertFrequency, SavedSearch
from tests.factories import ListingFactory, SavedSearchFactory, UserFactory
from tests.properties.test_search_equality import SEED, build_catalogue, generate_searches

pytestmark = pytest.mark.django_db

PUBLIC = (PropertyStatus.AVAILABLE, PropertyStatus.SOLD, PropertyStatus.RENTED)


@pytest.fixture(scope="module")
def saved(django_db_setup, django_db_blocker):
    """The catalogue's listings and the searches' criteria saved, made once for the module
    in a transaction rolled back at the end."""
    with django_db_blocker.unblock(), transaction.atomic():
        catalogue = build_catalogue(random.Random(SEED))
        searches = generate_searches(catalogue)
        customer = UserFactory()
        rng = random.Random(SEED + 7)
        seen = set()
        for search in searches:
            criteria = {name: value for name, value in search.parameters.items() if name != "sort"}
            key = tuple(sorted(criteria.items()))
            if not criteria or key in seen:
                continue
            seen.add(key)
            frequency = rng.choice([*AlertFrequency.values, AlertFrequency.INSTANT])
            SavedSearchFactory(user=customer, criteria=criteria, frequency=frequency)
        yield catalogue
        transaction.set_rollback(True)


def reference() -> dict[str, set[str]]:
    """For each listing, the active saved searches whose results (as a visitor's) hold it:
    every saved search run once."""
    holding: dict[str, set[str]] = {}
    visitor = AnonymousUser()
    for saved_search in SavedSearch.objects.exclude(frequency=AlertFrequency.PAUSED):
        matches = search_filtered(viewer=visitor, params=search_params(saved_search.criteria))
        for listing_id in matches.values_list("pk", flat=True):
            holding.setdefault(listing_id, set()).add(saved_search.pk)
    return holding


def test_every_public_listing_matches_the_saved_searches_that_hold_it(saved):
    # given
    expected = reference()
    listings = list(Property.objects.filter(status__in=PUBLIC).order_by("pk"))
    assert SavedSearch.objects.filter(checked_on_listing=False).count() > 20
    assert SavedSearch.objects.filter(checked_on_listing=True).count() > 20
    assert sum(1 for listing in listings if expected.get(listing.pk)) > len(listings) // 2

    # when
    found = {
        listing.pk: {match.id for match in saved_searches_matching(listing=listing)}
        for listing in listings
    }

    # then
    criteria = dict(SavedSearch.objects.values_list("pk", "criteria"))
    wrong = [
        f"{listing_id}: found too {[criteria[pk] for pk in found[listing_id] - held]},"
        f" missed {[criteria[pk] for pk in held - found[listing_id]]}"
        for listing_id in found
        if found[listing_id] != (held := expected.get(listing_id, set()))
    ]
    assert not wrong, "\n".join(wrong[:5])


@pytest.mark.parametrize(
    ("criteria", "longitude", "latitude", "held"),
    [
        # Across the antimeridian: east of 170 or west of -170.
        ({"bbox": "170,-20,-170,-10"}, 175.0, -15.0, True),
        ({"bbox": "170,-20,-170,-10"}, -175.0, -15.0, True),
        ({"bbox": "170,-20,-170,-10"}, 0.0, -15.0, False),
        # Edges are included, and a hair past one is outside (PostgreSQL's boxes compare
        # with a tolerance of 1e-6).
        ({"bbox": "-4,40,-3,41"}, -3.0, 41.0, True),
        ({"bbox": "-4,40,-3,41"}, -2.9999995, 40.5, False),
        ({"bbox": "-4,40,-3,41"}, -3.5, 39.9999995, False),
        # A circle around a pole spans every longitude.
        ({"lat": "89", "lng": "0", "radiusKm": "300"}, 120.0, 89.5, True),
        ({"lat": "89", "lng": "0", "radiusKm": "300"}, 120.0, 80.0, False),
        # A circle across the antimeridian, and drawn areas with a point on an edge, a
        # vertex, inside and a hair outside.
        ({"lat": "-15", "lng": "179.9", "radiusKm": "50"}, -179.9, -15.0, True),
        ({"lat": "-15", "lng": "179.9", "radiusKm": "50"}, -179.0, -15.0, False),
        ({"polygon": "-4,40,-3,40,-3.5,41,-4,40"}, -3.5, 40.0, True),
        ({"polygon": "-4,40,-3,40,-3.5,41,-4,40"}, -3.5, 41.0, True),
        ({"polygon": "-4,40,-3,40,-3.5,41,-4,40"}, -3.5, 40.5, True),
        ({"polygon": "-4,40,-3,40,-3.5,41,-4,40"}, -3.5, 39.99, False),
    ],
)
def test_map_area_edges_the_antimeridian_and_the_poles(criteria, longitude, latitude, held):
    # given
    saved_search = SavedSearchFactory(criteria=criteria, frequency=AlertFrequency.INSTANT)
    listing = ListingFactory(longitude=longitude, latitude=latitude)

    # when
    found = saved_searches_matching(listing=listing)

    # then
    assert (saved_search.pk in {match.id for match in found}) is held


def test_paused_searches_are_left_out(db):
    # given
    listing = ListingFactory(municipality="Segovia")
    active = SavedSearchFactory(criteria={"municipality": "SEGOVIA"})
    paused = SavedSearchFactory(
        criteria={"municipality": "segovia"}, frequency=AlertFrequency.PAUSED
    )

    # when
    found = saved_searches_matching(listing=listing)

    # then the active one is found, with its user and frequency, and not the paused one
    assert (active.pk, active.user_id, "DAILY") in found
    assert paused.pk not in {match.id for match in found}


def test_a_listing_a_visitor_does_not_see_matches_nothing(db):
    # given
    listing = ListingFactory(municipality="Segovia", status=PropertyStatus.PENDING)
    SavedSearchFactory(criteria={"municipality": "segovia"})

    # when
    found = saved_searches_matching(listing=listing)

    # then
    assert found == []
