"""GET /properties filters (interface and D8), each alone, combined, and their validation."""

import datetime
from decimal import Decimal

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from listings.models import (
    PUBLIC_LISTING,
    SEARCH_COLUMNS,
    Property,
    PropertyStatus,
    PropertyType,
    TransactionType,
)
from listings.search.params import SORTS, search_params
from listings.search.query import LOOKUPS, search_filtered
from listings.search.windows import window_path
from tests.factories import CategoryFactory, ListingFactory, TypeSpecificRecordFactory
from tests.properties.support import PROPERTIES_URL, assert_validation_error, ids

pytestmark = pytest.mark.django_db


def created_in_order(*listings: Property) -> None:
    """Give the listings creation times one minute apart, the first the oldest."""
    start = timezone.now() - datetime.timedelta(days=1)
    for offset, listing in enumerate(listings):
        Property.objects.filter(pk=listing.pk).update(
            created_at=start + datetime.timedelta(minutes=offset)
        )


def listed_ids(client, parameters: dict) -> set[str]:
    response = client.get(PROPERTIES_URL, parameters)
    assert response.status_code == 200, response.content
    assert response.json()["totalItems"] == len(response.json()["properties"])
    return set(ids(response))


@pytest.mark.parametrize("kind", PropertyType.values)
def test_filter_type_keeps_only_listings_of_that_kind(anonymous_client, kind):
    # given
    listings = {}
    for each_kind in PropertyType.values:
        listings[each_kind] = ListingFactory()
        TypeSpecificRecordFactory(property=listings[each_kind], kind=each_kind)
    ListingFactory()  # a listing without a type-specific record yet

    # when
    response = anonymous_client.get(PROPERTIES_URL, {"type": kind})

    # then
    assert response.status_code == 200
    assert ids(response) == [listings[kind].id]
    assert response.json()["properties"][0]["type"] == kind


@pytest.mark.parametrize("transaction_type", TransactionType.values)
def test_filter_transaction_type(anonymous_client, transaction_type):
    # given
    sale = ListingFactory(transaction_type=TransactionType.SALE)
    rent = ListingFactory(transaction_type=TransactionType.RENT)
    expected = {TransactionType.SALE: sale.id, TransactionType.RENT: rent.id}

    # when
    found = listed_ids(anonymous_client, {"transactionType": transaction_type})

    # then
    assert found == {expected[transaction_type]}


def test_filter_min_price_is_inclusive(anonymous_client):
    # given
    ListingFactory(price=Decimal("99999.99"))
    at_bound = ListingFactory(price=Decimal("100000.00"))
    above = ListingFactory(price=Decimal("250000.00"))

    # when
    found = listed_ids(anonymous_client, {"minPrice": "100000"})

    # then
    assert found == {at_bound.id, above.id}


def test_filter_max_price_is_inclusive(anonymous_client):
    # given
    below = ListingFactory(price=Decimal("99999.99"))
    at_bound = ListingFactory(price=Decimal("100000.00"))
    ListingFactory(price=Decimal("100000.01"))

    # when
    found = listed_ids(anonymous_client, {"maxPrice": "100000"})

    # then
    assert found == {below.id, at_bound.id}


def test_filter_price_range(anonymous_client):
    # given
    ListingFactory(price=Decimal("500.00"))
    inside = ListingFactory(price=Decimal("1500.00"))
    ListingFactory(price=Decimal("2500.00"))

    # when
    found = listed_ids(anonymous_client, {"minPrice": "1000", "maxPrice": "2000.50"})

    # then
    assert found == {inside.id}


def test_filter_equal_min_and_max_price(anonymous_client):
    # given
    exact = ListingFactory(price=Decimal("1500.00"))
    ListingFactory(price=Decimal("1500.01"))

    # when
    found = listed_ids(anonymous_client, {"minPrice": "1500", "maxPrice": "1500"})

    # then
    assert found == {exact.id}


@pytest.mark.parametrize("value", ["madrid", "Madrid", "MADRID", " madrid "])
def test_filter_municipality_matches_any_case(anonymous_client, value):
    # given
    madrid = ListingFactory(municipality="Madrid")
    ListingFactory(municipality="Barcelona")

    # when
    found = listed_ids(anonymous_client, {"municipality": value})

    # then
    assert found == {madrid.id}


@pytest.mark.parametrize("value", ["Madri", "adrid", "Madrid Centro", "Mad%"])
def test_filter_municipality_matches_only_the_whole_name(anonymous_client, value):
    # given
    ListingFactory(municipality="Madrid")

    # when
    found = listed_ids(anonymous_client, {"municipality": value})

    # then
    assert found == set()


def test_filter_owner_id(anonymous_client, owner_record, other_owner_record):
    # given
    mine = ListingFactory(owner=owner_record)
    ListingFactory(owner=other_owner_record)

    # when
    found = listed_ids(anonymous_client, {"ownerId": owner_record.id})

    # then
    assert found == {mine.id}


def test_filter_owner_id_unknown_gives_an_empty_list(anonymous_client, owner_record):
    # given
    ListingFactory(owner=owner_record)

    # when
    found = listed_ids(anonymous_client, {"ownerId": "zzzzzzzzzzzzzzzzzzzzzzzzz"})

    # then
    assert found == set()


def test_filter_category_id(anonymous_client):
    # given
    offices = CategoryFactory(name="Offices")
    filed = ListingFactory(category=offices)
    ListingFactory()

    # when
    found = listed_ids(anonymous_client, {"categoryId": offices.id})

    # then
    assert found == {filed.id}


@pytest.mark.parametrize(
    "status", [PropertyStatus.AVAILABLE, PropertyStatus.SOLD, PropertyStatus.RENTED]
)
def test_filter_status_of_visible_listings(anonymous_client, status):
    # given
    by_status = {
        PropertyStatus.AVAILABLE: ListingFactory(status=PropertyStatus.AVAILABLE),
        PropertyStatus.SOLD: ListingFactory(status=PropertyStatus.SOLD),
        PropertyStatus.RENTED: ListingFactory(
            status=PropertyStatus.RENTED, transaction_type=TransactionType.RENT
        ),
    }

    # when
    found = listed_ids(anonymous_client, {"status": status})

    # then
    assert found == {by_status[status].id}


@pytest.mark.parametrize("status", [PropertyStatus.PENDING, PropertyStatus.SUSPENDED])
def test_filter_status_of_hidden_listings_for_an_admin(admin_client, anonymous_client, status):
    # given
    hidden = ListingFactory(status=status)
    ListingFactory(status=PropertyStatus.AVAILABLE)

    # when
    found_by_admin = listed_ids(admin_client, {"status": status})
    found_by_anonymous = listed_ids(anonymous_client, {"status": status})

    # then
    assert found_by_admin == {hidden.id}
    assert found_by_anonymous == set()


def test_filter_min_area_and_max_area_are_inclusive(anonymous_client):
    # given
    too_small = ListingFactory(area=Decimal("49.99"))
    low = ListingFactory(area=Decimal("50.00"))
    high = ListingFactory(area=Decimal("80.00"))
    too_large = ListingFactory(area=Decimal("80.01"))

    # when
    found_min = listed_ids(anonymous_client, {"minArea": "50"})
    found_max = listed_ids(anonymous_client, {"maxArea": "80"})
    found_both = listed_ids(anonymous_client, {"minArea": "50", "maxArea": "80"})

    # then
    assert found_min == {low.id, high.id, too_large.id}
    assert found_max == {too_small.id, low.id, high.id}
    assert found_both == {low.id, high.id}


def test_filter_min_bedrooms_keeps_listings_with_at_least_that_many(anonymous_client):
    # given
    house = ListingFactory()
    TypeSpecificRecordFactory(property=house, kind=PropertyType.HOUSE, bedrooms=3)
    apartment = ListingFactory()
    TypeSpecificRecordFactory(property=apartment, kind=PropertyType.APARTMENT, bedrooms=2)
    small_apartment = ListingFactory()
    TypeSpecificRecordFactory(property=small_apartment, kind=PropertyType.APARTMENT, bedrooms=1)
    land = ListingFactory()
    TypeSpecificRecordFactory(property=land, kind=PropertyType.LAND)
    ListingFactory()

    # when
    found_two = listed_ids(anonymous_client, {"minBedrooms": 2})
    found_three = listed_ids(anonymous_client, {"minBedrooms": 3})
    found_four = listed_ids(anonymous_client, {"minBedrooms": 4})

    # then
    assert found_two == {house.id, apartment.id}
    assert found_three == {house.id}
    assert found_four == set()


@pytest.fixture
def searchable_listings():
    """Listings whose words sit in different searched fields."""
    return {
        "title": ListingFactory(
            title="Sunny penthouse",
            description="Top floor flat.",
            address="1 Calle Mayor",
            municipality="Madrid",
        ),
        "description": ListingFactory(
            title="Family home",
            description="Large garden with fruit trees.",
            address="2 Calle Mayor",
            municipality="Madrid",
        ),
        "address": ListingFactory(
            title="Quiet studio",
            description="Small and cosy.",
            address="12 Calle Alcala",
            municipality="Madrid",
        ),
        "municipality": ListingFactory(
            title="Old mill",
            description="Stone walls.",
            address="3 Camino Real",
            municipality="Segovia",
        ),
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("penthouse", {"title"}),
        ("PENTHOUSE", {"title"}),
        ("garden", {"description"}),
        ("Alcala", {"address"}),
        ("segovia", {"municipality"}),
        ("sunny penthouse", {"title"}),
        ("garden madrid", {"description"}),
        ("mill segovia", {"municipality"}),
        ("mayor", {"title", "description"}),
        ("penthouse garden", set()),
        ("castle", set()),
    ],
)
def test_filter_q_searches_title_description_address_and_municipality(
    anonymous_client, searchable_listings, text, expected
):
    # given the searchable listings

    # when
    found = listed_ids(anonymous_client, {"q": text})

    # then
    assert found == {searchable_listings[field].id for field in expected}


@pytest.mark.parametrize("text", ["malaga", "MALAGA", "Málaga", "máLAGA", "malága"])
def test_filter_q_finds_words_whatever_their_accents(anonymous_client, text):
    # given listings with accented words in each searched field, and one without them
    listings = {
        ListingFactory(title="Ático en Málaga").id,
        ListingFactory(description="Vistas a la bahía de MÁLAGA.").id,
        ListingFactory(address="Calle Málaga 3").id,
        ListingFactory(municipality="Málaga").id,
    }
    ListingFactory(title="Ático en Madrid", municipality="Madrid")

    # when
    found = listed_ids(anonymous_client, {"q": text})

    # then
    assert found == listings


def test_filter_q_of_several_words_folds_each(anonymous_client):
    # given
    wanted = ListingFactory(title="Ático con jardín", municipality="A Coruña")
    ListingFactory(title="Ático", municipality="A Coruña")

    # when
    found = listed_ids(anonymous_client, {"q": "atico jardin coruna"})

    # then
    assert found == {wanted.id}


def test_filter_q_of_only_spaces_filters_nothing(anonymous_client, searchable_listings):
    # given the searchable listings

    # when
    found = listed_ids(anonymous_client, {"q": "   "})

    # then
    assert found == {listing.id for listing in searchable_listings.values()}


def test_filter_q_excludes_hidden_listings(anonymous_client):
    # given
    visible = ListingFactory(title="Sunny penthouse", status=PropertyStatus.AVAILABLE)
    ListingFactory(title="Sunny penthouse too", status=PropertyStatus.PENDING)

    # when
    found = listed_ids(anonymous_client, {"q": "penthouse"})

    # then
    assert found == {visible.id}


@pytest.mark.postgres_only
def test_filter_q_puts_the_best_match_first_then_the_newest(anonymous_client):
    # given an older listing about gardens, and two newer ones that only mention one
    best = ListingFactory(title="Garden house", description="A garden, and a garden view.")
    newer = ListingFactory(title="Flat", description="Near a garden.")
    newest = ListingFactory(title="Loft", description="Near a garden.")
    created_in_order(best, newer, newest)

    # when
    response = anonymous_client.get(PROPERTIES_URL, {"q": "garden"})

    # then the best match leads, the equal ones follow newest first
    assert response.status_code == 200
    assert ids(response) == [best.id, newest.id, newer.id]
    assert response.json()["totalItems"] == 3


@pytest.mark.postgres_only
def test_filter_q_ranks_the_newest_matches_of_the_window(anonymous_client, settings):
    # given a window of two, and three matches of which the best is the oldest
    settings.SEARCH_RANK_WINDOW = 2
    oldest_best = ListingFactory(title="Garden house", description="A garden, a garden view.")
    older = ListingFactory(title="Flat", description="Near a garden.")
    newest = ListingFactory(title="Loft", description="Near a garden, with a garden.")
    created_in_order(oldest_best, older, newest)

    # when searched by relevance, and by date
    ranked = anonymous_client.get(PROPERTIES_URL, {"q": "garden"})
    dated = anonymous_client.get(PROPERTIES_URL, {"q": "garden", "sort": "-createdAt"})

    # then relevance orders the two newest; a sort reaches every match
    assert ids(ranked) == [newest.id, older.id]
    assert ranked.json()["totalItems"] == 2
    assert ids(dated) == [newest.id, older.id, oldest_best.id]
    assert dated.json()["totalItems"] == 3


@pytest.mark.postgres_only
def test_filter_q_window_sorts_few_matches_and_walks_the_dates_of_many(anonymous_client, settings):
    # given a window of two, three listings with a rare word and eighteen with a common one,
    # and the planner's statistics of them
    settings.SEARCH_RANK_WINDOW = 2
    rare = ListingFactory.create_batch(3, title="Garden flat")
    common = ListingFactory.create_batch(18, title="Terrace flat")
    created_in_order(*rare, *common)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE listings_property")

    def matches(text: str):
        return search_filtered(viewer=AnonymousUser(), params=search_params({"q": text}))

    # when both are searched by relevance
    rare_page = anonymous_client.get(PROPERTIES_URL, {"q": "garden"})
    common_page = anonymous_client.get(PROPERTIES_URL, {"q": "terrace"})

    # then the rare word's matches are sorted (3 x 3 < 2 x 21 rows), the common one's found
    # along the date index (18 x 18 > 2 x 21), and either way the window is the newest two
    assert window_path(matches("garden"), window=2).sorts is True
    assert window_path(matches("terrace"), window=2).sorts is False
    assert ids(rare_page) == [rare[2].id, rare[1].id]
    assert ids(common_page) == [common[17].id, common[16].id]
    assert (rare_page.json()["totalItems"], common_page.json()["totalItems"]) == (2, 2)


def window_statements(queries) -> list[str]:
    """The statements that found a relevance search's window (its page, counted beside)."""
    return [
        query["sql"]
        for query in queries
        if "search_document" in query["sql"] and "OVER ()" in query["sql"]
    ]


@pytest.mark.postgres_only
def test_filter_q_window_of_a_full_recent_slice_is_the_newest_matches(
    anonymous_client, settings, garden_listings
):
    # given a window of two, and fourteen matches among a hundred listings, every seventh
    settings.SEARCH_RANK_WINDOW = 2
    gardens = garden_listings(gathered=False)

    # when searched by relevance
    with CaptureQueriesContext(connection) as queries:
        response = anonymous_client.get(PROPERTIES_URL, {"q": "garden"})

    # then the window came from the listings of a recent slice, full, so no further: the
    # two newest matches
    assert response.status_code == 200
    statements = window_statements(queries)
    assert len(statements) == 1 and "listing_creation_cover" in statements[0], statements
    assert ids(response) == [gardens[13].id, gardens[12].id]
    assert (response.json()["totalItems"], response.json()["totalItemsExact"]) == (2, True)


@pytest.mark.postgres_only
@pytest.mark.parametrize("page", [1, 2])
def test_filter_q_window_past_a_short_recent_slice_comes_from_every_match(
    anonymous_client, settings, garden_listings, page
):
    # given a window of two, and fourteen matches among a hundred listings, the oldest
    settings.SEARCH_RANK_WINDOW = 2
    gardens = garden_listings(gathered=True)

    # when a page of a relevance search is read
    with CaptureQueriesContext(connection) as queries:
        response = anonymous_client.get(PROPERTIES_URL, {"q": "garden", "limit": 1, "page": page})

    # then the recent slice held too few matches, so the window came from every match:
    # the two newest, one a page
    assert response.status_code == 200
    statements = window_statements(queries)
    assert len(statements) == 2, statements
    assert "listing_creation_cover" in statements[0]
    assert "listing_creation_cover" not in statements[1]
    assert ids(response) == [gardens[14 - page].id]
    assert (response.json()["totalItems"], response.json()["totalItemsExact"]) == (2, True)


@pytest.mark.postgres_only
def test_filter_q_window_holds_only_what_the_reader_may_see(anonymous_client, settings):
    # given a window of two, and the two newest matches hidden from the public
    settings.SEARCH_RANK_WINDOW = 2
    visible = ListingFactory.create_batch(2, title="Garden flat")
    hidden = [
        ListingFactory(title="Garden flat", status=PropertyStatus.PENDING),
        ListingFactory(title="Garden flat", status=PropertyStatus.SUSPENDED),
    ]
    created_in_order(*visible, *hidden)

    # when
    response = anonymous_client.get(PROPERTIES_URL, {"q": "garden"})

    # then the window is the two newest visible matches
    assert set(ids(response)) == {listing.id for listing in visible}


@pytest.fixture
def sortable_listings():
    """Three listings whose price, area and age orders all differ."""
    cheap = ListingFactory(price=Decimal("100000.00"), area=Decimal("300.00"))
    middle = ListingFactory(price=Decimal("200000.00"), area=Decimal("100.00"))
    dear = ListingFactory(price=Decimal("300000.00"), area=Decimal("200.00"))
    created_in_order(middle, dear, cheap)
    return {"cheap": cheap, "middle": middle, "dear": dear}


@pytest.mark.parametrize(
    ("sort", "expected"),
    [
        ("price", ["cheap", "middle", "dear"]),
        ("-price", ["dear", "middle", "cheap"]),
        ("createdAt", ["middle", "dear", "cheap"]),
        ("-createdAt", ["cheap", "dear", "middle"]),
        ("area", ["middle", "dear", "cheap"]),
        ("-area", ["cheap", "dear", "middle"]),
    ],
)
def test_sort(anonymous_client, sortable_listings, sort, expected):
    # given the sortable listings

    # when
    response = anonymous_client.get(PROPERTIES_URL, {"sort": sort})

    # then
    assert response.status_code == 200
    assert ids(response) == [sortable_listings[name].id for name in expected]


def test_sort_ties_are_broken_by_id(anonymous_client):
    # given
    listings = ListingFactory.create_batch(3, price=Decimal("1000.00"))
    ordered = sorted(listing.id for listing in listings)

    # when
    ascending = anonymous_client.get(PROPERTIES_URL, {"sort": "price"})
    descending = anonymous_client.get(PROPERTIES_URL, {"sort": "-price"})

    # then
    assert ids(ascending) == ordered
    assert ids(descending) == list(reversed(ordered))


def test_sort_and_q_together(anonymous_client):
    # given
    cheap = ListingFactory(title="Garden flat", price=Decimal("1000.00"))
    dear = ListingFactory(title="Garden villa", price=Decimal("9000.00"))
    ListingFactory(title="Roof flat", price=Decimal("5000.00"))

    # when
    response = anonymous_client.get(PROPERTIES_URL, {"q": "garden", "sort": "-price"})

    # then
    assert ids(response) == [dear.id, cheap.id]


def test_filters_combined(anonymous_client, owner_record, other_owner_record):
    # given
    wanted_fields = {
        "owner": owner_record,
        "transaction_type": TransactionType.RENT,
        "price": Decimal("1200.00"),
        "area": Decimal("90.00"),
        "municipality": "Valencia",
        "title": "Sunlit flat near the beach",
        "status": PropertyStatus.AVAILABLE,
    }
    wanted = ListingFactory(**wanted_fields)
    TypeSpecificRecordFactory(property=wanted, kind=PropertyType.APARTMENT, bedrooms=3)
    # each near miss differs from the wanted listing in one filtered respect only
    near_misses = [
        {"owner": other_owner_record},
        {"transaction_type": TransactionType.SALE},
        {"price": Decimal("1500.01")},
        {"price": Decimal("999.99")},
        {"area": Decimal("79.99")},
        {"area": Decimal("100.01")},
        {"municipality": "Madrid"},
        {"title": "Dark flat near the beach"},
        {"status": PropertyStatus.RENTED},
        {"category": CategoryFactory(name="Holiday homes")},
    ]
    for difference in near_misses:
        listing = ListingFactory(**{**wanted_fields, **difference})
        TypeSpecificRecordFactory(property=listing, kind=PropertyType.APARTMENT, bedrooms=3)
    few_bedrooms = ListingFactory(**wanted_fields)
    TypeSpecificRecordFactory(property=few_bedrooms, kind=PropertyType.APARTMENT, bedrooms=1)
    house = ListingFactory(**wanted_fields)
    TypeSpecificRecordFactory(property=house, kind=PropertyType.HOUSE, bedrooms=3)
    parameters = {
        "type": "apartment",
        "transactionType": "RENT",
        "minPrice": "1000",
        "maxPrice": "1500",
        "municipality": "valencia",
        "ownerId": owner_record.id,
        "categoryId": wanted.category_id,
        "status": "AVAILABLE",
        "q": "sunlit",
        "minArea": "80",
        "maxArea": "100",
        "minBedrooms": "2",
        "sort": "-price",
    }

    # when
    response = anonymous_client.get(PROPERTIES_URL, parameters)
    response_for_houses = anonymous_client.get(PROPERTIES_URL, {**parameters, "type": "house"})

    # then
    assert response.status_code == 200
    assert ids(response) == [wanted.id]
    assert response.json()["totalItems"] == 1
    assert ids(response_for_houses) == [house.id]


@pytest.mark.parametrize(
    ("parameters", "fields"),
    [
        ({"type": "castle"}, {"type"}),
        ({"type": "House"}, {"type"}),
        ({"type": "hotels"}, {"type"}),
        ({"transactionType": "LEASE"}, {"transactionType"}),
        ({"status": "DELETED"}, {"status"}),
        ({"status": "available"}, {"status"}),
        ({"minPrice": "abc"}, {"minPrice"}),
        ({"minPrice": "NaN"}, {"minPrice"}),
        ({"maxPrice": "Infinity"}, {"maxPrice"}),
        ({"maxPrice": "abc"}, {"maxPrice"}),
        ({"minPrice": "-1"}, {"minPrice"}),
        ({"minPrice": "2000", "maxPrice": "1000"}, {"minPrice"}),
        ({"minArea": "abc"}, {"minArea"}),
        ({"minArea": "90", "maxArea": "80"}, {"minArea"}),
        ({"minBedrooms": "two"}, {"minBedrooms"}),
        ({"minBedrooms": "-1"}, {"minBedrooms"}),
        ({"sort": "title"}, {"sort"}),
        ({"sort": "created_at"}, {"sort"}),
        ({"type": "castle", "limit": "0"}, {"type", "limit"}),
    ],
)
def test_invalid_filter_is_400_naming_the_parameter(anonymous_client, parameters, fields):
    # given
    ListingFactory()

    # when
    response = anonymous_client.get(PROPERTIES_URL, parameters)

    # then
    assert_validation_error(response, *fields)


# Filters judged elsewhere than in the public indexes' search columns: the status (rare for
# the public: a plain index scan), the owner (owners' own lists), text (its own index).
NOT_IN_SEARCH_COLUMNS = {"status", "owner_id", "search_document"}
# The map's filters (box, circle, drawn area) name these.
MAP_COLUMNS = {"latitude", "longitude"}


def test_every_public_index_holds_every_column_a_search_filters_on_or_sorts_by():
    # given the columns the filters and the sorts name
    named = {lookup.split("__")[0] for lookup in LOOKUPS.values()} | {
        column.lstrip("-") for order in SORTS.values() for column in order
    }
    named |= {"municipality"} | MAP_COLUMNS  # LOWER(municipality)
    # (the sitemap's index walks public listings by id for their addresses: no search)
    public_indexes = [
        index
        for index in Property._meta.indexes
        if index.condition == PUBLIC_LISTING and index.name != "listings_prop_pub_sitemap_idx"
    ]

    # then they are the search columns, and every public index holds them all, so that a
    # walk along its order judges each filter without visiting the table
    assert named - NOT_IN_SEARCH_COLUMNS == set(SEARCH_COLUMNS) - {"category"} | {"category_id"}
    assert len(public_indexes) == 13
    for index in public_indexes:
        columns = {
            expression.name if isinstance(expression, F) else expression.expression.name
            for expression in index.expressions
            if isinstance(expression, F) or isinstance(getattr(expression, "expression", None), F)
        }
        assert set(SEARCH_COLUMNS) <= columns, index.name
