"""The home and search page: the API's filters in the URL, cards, map markers, query count."""

import json
import re

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from listings.models import PropertyStatus
from tests.factories import ImageFactory, PropertyFactory, TypeSpecificRecordFactory
from tests.site.conftest import house

pytestmark = pytest.mark.django_db


def card_titles(response) -> list[str]:
    """Titles of the listing cards, in page order."""
    return re.findall(r'<h3 class="card__title"><a href="[^"]+">([^<]+)</a>', response.text)


def map_markers(response) -> list[dict]:
    """The markers the page hands to its map script."""
    match = re.search(
        r'<script id="map-markers" type="application/json">(.*?)</script>', response.text
    )
    return json.loads(match.group(1))


def test_home_lists_public_listings_newest_first_and_hides_pending_ones(client):
    # given two public listings and one waiting for moderation
    house(title="Sea view flat")
    house(title="Quiet house")
    house(title="Not moderated yet", status=PropertyStatus.PENDING)

    # when
    response = client.get("/en/")

    # then
    assert response.status_code == 200
    assert card_titles(response) == ["Quiet house", "Sea view flat"]
    assert "2 listings" in response.text


def test_filters_in_the_url_are_the_api_parameters(client):
    # given listings that differ in kind, deal, price, place, area and bedrooms
    house(title="Madrid house", municipality="Madrid", price=300000, area=150)
    house(title="Cheap Madrid house", municipality="Madrid", price=90000, area=150)
    house(title="Seville house", municipality="Seville", price=300000, area=150)
    TypeSpecificRecordFactory(
        kind="land", property__title="Madrid land", property__municipality="Madrid"
    )
    house(title="Madrid rental", municipality="Madrid", transaction_type="RENT", price=300000)

    # when the search names the API's camelCase parameters
    response = client.get(
        "/en/",
        {
            "type": "house",
            "transactionType": "SALE",
            "municipality": "madrid",
            "minPrice": "100000",
            "maxPrice": "400000",
            "minArea": "100",
            "maxArea": "200",
            "minBedrooms": "3",
            "sort": "-price",
        },
    )

    # then only the listing matching them all is shown, and the form keeps the values
    assert response.status_code == 200
    assert card_titles(response) == ["Madrid house"]
    assert 'name="minPrice" value="100000"' in response.text
    assert '<option value="house" selected>House</option>' in response.text


def test_free_text_searches_title_description_address_and_municipality(client):
    house(title="Loft with terrace", description="Bright.")
    house(title="Plain flat", description="A roof terrace on top.")
    house(title="Garden house", description="Green.")

    response = client.get("/en/", {"q": "terrace", "sort": "createdAt"})

    assert card_titles(response) == ["Loft with terrace", "Plain flat"]


def test_invalid_filters_show_their_errors_and_no_results(client):
    house(title="Any house")

    response = client.get("/en/", {"minPrice": "500", "maxPrice": "100", "type": "castle"})

    assert response.status_code == 400
    assert card_titles(response) == []
    assert "minPrice must not be greater than maxPrice." in response.text
    assert "Select a valid choice. castle is not one of the available choices." in response.text


def test_results_are_paginated_by_twelve_and_page_links_keep_the_filters(client):
    for number in range(13):
        house(title=f"House {number:02d}", municipality="Madrid")

    first = client.get("/en/", {"municipality": "Madrid", "sort": "createdAt"})
    second = client.get("/en/", {"municipality": "Madrid", "sort": "createdAt", "page": "2"})

    assert len(card_titles(first)) == 12
    assert card_titles(second) == ["House 12"]
    assert "Page 1 of 2" in first.text
    assert 'href="?municipality=Madrid&amp;sort=createdAt&amp;page=2"' in first.text


def test_bbox_from_the_map_filters_and_is_kept_by_the_form(client):
    house(title="In Madrid", latitude=40.42, longitude=-3.70)
    house(title="In Paris", latitude=48.85, longitude=2.35)

    response = client.get("/en/", {"bbox": "-4,40,-3,41"})

    assert card_titles(response) == ["In Madrid"]
    assert '<input type="hidden" name="bbox" value="-4,40,-3,41">' in response.text
    assert 'data-bbox="-4,40,-3,41"' in response.text
    assert "Search everywhere" in response.text


def test_map_markers_are_the_results_with_their_positions_and_links(client):
    listing = house(title="Marked house", latitude=40.5, longitude=-3.5, price=120000)

    response = client.get("/en/")

    assert map_markers(response) == [
        {
            "id": listing.pk,
            "title": "Marked house",
            "price": "120000.00",
            "transactionType": "SALE",
            "lat": 40.5,
            "lng": -3.5,
            "url": listing.get_absolute_url(),
        }
    ]


def test_map_tiles_come_from_the_setting_and_default_to_none(client, settings):
    house()

    default = client.get("/en/")
    settings.MAP_TILE_URL = "https://tiles.example.com/{z}/{x}/{y}.png"
    configured = client.get("/en/")

    assert 'data-tile-url=""' in default.text
    assert 'data-tile-url="https://tiles.example.com/{z}/{x}/{y}.png"' in configured.text
    assert "/static/leaflet/leaflet.js" in default.text
    assert "unpkg" not in default.text and "cdn" not in default.text.lower()


def test_card_shows_the_cover_400_pixel_copy_price_type_place_and_facts(client):
    # given a house whose first photo has a 400 px copy, and a land without a copy
    listing = house(title="Covered", price=250000, area="120.50", municipality="Toledo")
    copy_name = default_storage.save("properties/x/images/cover_400.webp", ContentFile(b"w"))
    ImageFactory(property=listing, position=0, title="Front", thumbnails={"400": copy_name})
    ImageFactory(property=listing, position=1, title="Back")
    land = TypeSpecificRecordFactory(kind="land", property__title="Bare land").property
    original = ImageFactory(property=land, title="")

    # when
    response = client.get("/en/", {"sort": "createdAt"})

    # then
    page = response.text
    assert f'src="/media/{copy_name}" alt="Front"' in page
    assert f'src="{original.file.url}" alt=""' in page
    assert "250,000" in page
    assert "House · Toledo" in page
    assert "<li>120.5 m²</li><li>3 bedrooms</li><li>2 bathrooms</li><li>5 rooms</li>" in page
    assert "<li>Buildable land</li>" in page


def test_a_card_whose_photo_files_are_missing_shows_the_placeholder(client):
    # given a listing whose cover lost its file and its copy
    listing = house(title="Lost photo")
    cover = ImageFactory(property=listing, title="", thumbnails={"400": "gone/cover_400.webp"})
    default_storage.delete(cover.file.name)

    # when
    response = client.get(reverse("home"))

    # then the card shows the site's placeholder picture, a static file, never the missing ones
    assert response.status_code == 200
    placeholder = '<img class="card__photo" src="/static/img/photo-placeholder.svg" alt=""'
    assert placeholder in response.text
    assert "cover_400" not in response.text
    assert cover.file.url not in response.text


def filters_button(response) -> str:
    """The text of the "Filters (n)" button of the search form."""
    return re.search(r"data-filters-toggle>([^<]+)</button>", response.text).group(1)


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        ({}, "Filters (0)"),
        ({"q": "garden", "sort": "price"}, "Filters (0)"),
        ({"type": "house", "minPrice": "100000", "municipality": "Madrid"}, "Filters (3)"),
        ({"maxArea": "90", "minBedrooms": "2", "sort": "-price"}, "Filters (2)"),
    ],
)
def test_the_filters_button_counts_the_filters_in_use(client, query, shown):
    # when
    response = client.get(reverse("home"), query)

    # then the keywords (always shown) and the order of the results are not counted
    assert response.status_code == 200
    assert filters_button(response) == shown
    assert 'aria-controls="search-filters"' in response.text
    assert 'aria-expanded="false"' in response.text


def test_the_filters_stay_open_while_one_is_invalid(client):
    response = client.get(reverse("home"), {"minPrice": "-5"})

    assert response.status_code == 400
    assert filters_button(response) == "Filters (1)"
    assert 'aria-expanded="true" data-filters-toggle' in response.text
    assert 'class="search-form__filters search-form__filters--open"' in response.text


# No transaction open, as in a web request.
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("signed_in", [False, True])
def test_query_count_is_the_same_for_one_and_thirty_results(
    client, customer, django_assert_num_queries, signed_in
):
    # given one result for a search, then thirty (with photos and records)
    def add_listings(count: int, municipality: str):
        for _number in range(count):
            listing = house(municipality=municipality)
            ImageFactory(property=listing)

    add_listings(1, "Avila")
    add_listings(30, "Burgos")
    if signed_in:
        client.force_login(customer)
    # anonymous: count, the page's ids, its listings, their photos, map markers; signed in
    # adds the session, the user and the unread notifications count (on PostgreSQL a town's
    # count is read from the listing groups alone, one statement with no timeout)
    expected = 8 if signed_in else 5

    # when / then
    with django_assert_num_queries(expected):
        one = client.get("/en/", {"municipality": "Avila"})
    with django_assert_num_queries(expected):
        thirty = client.get("/en/", {"municipality": "Burgos"})
    assert len(card_titles(one)) == 1
    assert len(card_titles(thirty)) == 12
    assert len(map_markers(thirty)) == 30


def test_owners_find_their_own_pending_listing_in_search_with_its_status(client, owner):
    house(owner, title="My pending house", status=PropertyStatus.PENDING)
    PropertyFactory(title="Someone's pending house", status=PropertyStatus.PENDING)
    client.force_login(owner)

    response = client.get("/en/")

    assert card_titles(response) == ["My pending house"]
    assert "Pending review" in response.text


def result_count(response) -> int:
    """The number of results the page announces."""
    return int(re.search(r'data-testid="result-count">(\d+) listing', response.text).group(1))


@pytest.mark.postgres_only
@pytest.mark.parametrize(
    ("search", "expected"),
    [
        ({}, 5),
        ({"transactionType": "RENT"}, 2),
        ({"minPrice": 1050}, 3),
        ({"minPrice": 1050, "maxPrice": 1150}, 1),
        ({"municipality": "segovia", "maxPrice": 2000}, 2),
    ],
)
def test_a_visitors_search_is_counted_exactly_from_the_public_listing_groups(
    client, search, expected
):
    # given public listings at several prices, in two towns, and a pending one
    for price, town, transaction in (
        ("1000", "Segovia", "SALE"),
        ("1100", "Segovia", "SALE"),
        ("1600", "Avila", "RENT"),
        ("2500", "Segovia", "RENT"),
        ("900", "Avila", "SALE"),
    ):
        PropertyFactory(municipality=town, price=price, transaction_type=transaction)
    PropertyFactory(municipality="Segovia", price="1000", status=PropertyStatus.PENDING)

    # when a visitor searches
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/en/", search)

    # then the page announces the exact number of matches, counted from the groups in one
    # statement, not by the paginator
    assert result_count(response) == expected
    grouped = [query for query in queries if "listings_publiclistinggroup" in query["sql"]]
    assert len(grouped) == 1
    assert not any('AS "__count"' in query["sql"] for query in queries)


# --- Rate limit and capped counts -----------------------------------------------------------


@pytest.mark.parametrize("viewer", ["anonymous", "customer"])
def test_the_search_page_is_rate_limited_like_the_apis_reads(
    request, client, throttle_rates, viewer
):
    # given the API's limits of 3 reads a minute, per address and per user
    throttle_rates(anonymous="3/min", signed_in="3/min")
    browser = client if viewer == "anonymous" else request.getfixturevalue("customer_session")
    house(title="Sea view flat")

    # when the page is asked for four times within the minute
    answers = [browser.get("/en/", {"q": f"flat {number}"}) for number in range(4)]

    # then the fourth is refused with the time to wait, and nothing of the search
    assert [answer.status_code for answer in answers] == [200, 200, 200, 429]
    refused = answers[3]
    assert int(refused["Retry-After"]) >= 1
    assert "Too many searches" in refused.text
    assert card_titles(refused) == []


def test_a_search_the_groups_cannot_count_is_counted_no_further_than_the_limit(client, settings):
    # given more matches than the exact-count limit, in a map area with a lowest price (the
    # groups hold no area, the map cells no price)
    settings.PROPERTY_LIST_EXACT_COUNT_LIMIT = 3
    for number in range(5):
        house(title=f"Flat {number}")
    search = {"bbox": "-10,35,5,45", "minPrice": "1"}

    # when a visitor searches the area
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/en/", search)

    # then its matches were counted no further than just past the limit, and the page says
    # what the API says (PostgreSQL's estimate past it; SQLite, which has none, counts all)
    assert response.status_code == 200
    counts = [query["sql"] for query in queries if "COUNT(" in query["sql"].upper()]
    assert "LIMIT 4" in counts[0]
    api = client.get("/api/v1/properties", search).json()
    total = api["totalItems"]
    said = f"{total} listings" if api["totalItemsExact"] else f"About {total} listings"
    assert f'data-testid="result-count">{said}<' in response.text
    assert api["totalItemsExact"] is (connection.vendor != "postgresql")


def test_a_search_is_paged_no_deeper_than_the_result_window(client, settings):
    # given more matches than the result window holds
    settings.PROPERTY_LIST_RESULT_WINDOW = 24
    for number in range(30):
        house(title=f"Flat {number}")

    # when a visitor asks for a page past the window
    response = client.get("/en/", {"page": 3})

    # then the last page of the window is shown, and no link leads further
    assert response.status_code == 200
    assert "Page 2 of 2" in response.text
    assert len(card_titles(response)) == 12
