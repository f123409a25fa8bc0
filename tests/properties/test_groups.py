"""Counts of public searches from the groups PostgreSQL keeps (listings.search.groups)."""

import collections
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from listings import services
from listings.models import (
    HIDDEN_STATUSES,
    Property,
    PropertyStatus,
    PropertyType,
    PublicListingGroup,
    TransactionType,
)
from listings.search import groups, pages
from listings.search.counting import grouped_count_statement
from tests.factories import CategoryFactory, ListingFactory, TypeSpecificRecordFactory
from tests.properties.support import PROPERTIES_URL

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_only]


def expected_groups() -> dict[tuple, int]:
    """The groups recomputed from the listings, in Python: eight keys a public listing."""
    counted: collections.Counter = collections.Counter()
    for listing in Property.objects.exclude(status__in=HIDDEN_STATUSES):
        for any_town in (False, True):
            for any_category in (False, True):
                for any_bedrooms in (False, True):
                    key = (
                        groups.ANY_TOWN if any_town else listing.municipality.lower(),
                        groups.ANY_CATEGORY if any_category else listing.category_id,
                        groups.ANY_BEDROOMS
                        if any_bedrooms
                        else (groups.NO_BEDROOMS if listing.bedrooms is None else listing.bedrooms),
                        listing.transaction_type,
                        listing.kind or "",
                        groups.price_band(listing.price),
                    )
                    counted[key] += 1
    return dict(counted)


def stored_groups() -> dict[tuple, int]:
    """The groups PostgreSQL keeps, without the ones emptied by deletions and moves."""
    return {
        (
            group.municipality_key,
            group.category_key,
            group.bedrooms_key,
            group.transaction_type,
            group.kind,
            group.price_band,
        ): group.listings
        for group in PublicListingGroup.objects.exclude(listings=0)
    }


def test_the_groups_follow_every_kind_of_write_to_listings(admin):
    # given listings of several kinds, towns, categories, statuses and prices, prices on
    # and beside the bands' edges among them
    shops = CategoryFactory(name="Shops")
    prices = ["0", "9.99", "10", "1000", "999.99", "1200", "820000000", "950000000", "250000"]
    listings = [
        ListingFactory(
            price=Decimal(price),
            municipality=("Madrid", "segovia", "ÁVILA")[number % 3],
            transaction_type=(TransactionType.SALE, TransactionType.RENT)[number % 2],
            status=(PropertyStatus.AVAILABLE, PropertyStatus.PENDING, PropertyStatus.SOLD)[
                number % 3
            ],
            **({"category": shops} if number % 4 == 0 else {}),
        )
        for number, price in enumerate(prices)
    ]
    for listing, kind in zip(listings, PropertyType.values, strict=False):
        TypeSpecificRecordFactory(property=listing, kind=kind)
    assert stored_groups() == expected_groups()

    # when they are changed through the services, in bulk, and deleted
    services.property_update(
        property=listings[0],
        by=admin,
        changes={"price": Decimal("1500"), "municipality": "Toledo"},
    )
    services.property_change_status(property=listings[1], by=admin, status=PropertyStatus.AVAILABLE)
    services.property_change_status(
        property=listings[3], by=admin, status=PropertyStatus.SUSPENDED, reason="Checking"
    )
    Property.objects.filter(pk__in=[listings[4].pk, listings[5].pk]).update(
        price=Decimal("77"), transaction_type=TransactionType.RENT
    )
    services.property_delete(property=listings[6], by=admin)
    Property.objects.filter(pk=listings[7].pk).delete()

    # then the groups are the listings' own, as if counted again
    assert stored_groups() == expected_groups()


def test_the_groups_follow_the_bulk_seeders_copy(bulk_loaded):
    # given the bulk seeder's COPY, which writes without the ORM: followed batch by batch,
    # or built after the load

    # then the groups hold its listings
    assert Property.objects.count() == 60
    assert stored_groups() == expected_groups()


def test_price_bands_are_postgresqls_width_buckets():
    # given prices on, just below and beyond every edge
    prices = [Decimal(0), Decimal("0.01"), Decimal("999999999999.99")]
    for edge in groups.PRICE_BAND_EDGES:
        prices += [edge - Decimal("0.01"), edge, edge + Decimal("0.01")]

    # when PostgreSQL numbers them
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT listings_price_band(price)"
            " FROM unnest(%s::numeric[]) WITH ORDINALITY AS prices (price, place) ORDER BY place",
            [prices],
        )
        numbered = [band for (band,) in cursor.fetchall()]

    # then Python numbers them the same
    assert numbered == [groups.price_band(price) for price in prices]


def test_the_matches_are_not_counted_when_the_groups_decide():
    # given listings, and a "count" that fails if it is ever run (a division by the count of
    # no listing: PostgreSQL can only find it out by running it)
    ListingFactory.create_batch(3, transaction_type=TransactionType.RENT)
    failing_count = ("SELECT 1 / COUNT(*) FROM listings_property WHERE id = ''", ())
    exact = groups.bounds_statement(groups.GroupedSearch(transaction_type=TransactionType.RENT))
    above = groups.bounds_statement(groups.GroupedSearch(min_price=Decimal("1000")))
    open_ended = groups.bounds_statement(groups.GroupedSearch(min_price=Decimal("250000.01")))

    # when the bounds are exact, or already past the limit of 2, or leave it open
    with connection.cursor() as cursor:
        cursor.execute(*grouped_count_statement(exact, [failing_count], 2))
        exact_row = cursor.fetchone()
        cursor.execute(*grouped_count_statement(above, [failing_count], 2))
        above_row = cursor.fetchone()
        left_open = [("SELECT %s", (7,)), ("SELECT %s", (1,))]
        cursor.execute(*grouped_count_statement(open_ended, left_open, 2))
        open_row = cursor.fetchone()

    # then the counts are run, and summed, only in the last case
    assert exact_row == (3, 3, None)
    assert above_row == (3, 3, None)
    assert open_row == (0, 3, 8)


@pytest.mark.django_db(transaction=True)
def test_a_search_the_groups_hold_is_counted_exactly_past_the_limit(anonymous_client, settings):
    # given more public listings to rent than the exact-count limit, and hidden ones
    settings.PROPERTY_LIST_EXACT_COUNT_LIMIT = 3
    ListingFactory.create_batch(6, transaction_type=TransactionType.RENT)
    ListingFactory.create_batch(2, transaction_type=TransactionType.RENT, status="PENDING")
    ListingFactory(transaction_type=TransactionType.SALE)

    # when a visitor searches them
    with CaptureQueriesContext(connection) as queries:
        response = anonymous_client.get(PROPERTIES_URL, {"transactionType": "RENT", "limit": 4})

    # then the count is exact, and the page is read in three statements: the count from the
    # groups alone (no timeout, no transaction of its own), the ids, the rows
    body = response.json()
    assert (body["totalItems"], body["totalItemsExact"], body["totalPages"]) == (6, True, 2)
    assert len(body["properties"]) == 4
    statements = [query["sql"] for query in queries]
    assert len(statements) == 3
    assert "listings_publiclistinggroup" in statements[0]
    assert not any(statement in ("BEGIN", "COMMIT") for statement in statements)


@pytest.mark.parametrize(
    ("other_price", "min_price", "expected"),
    [
        # one listing in a band the range only touches (1,000 to 1,200), below the range:
        # past the limit the total is an estimate between the groups' bounds (6 and 7)
        ("1050", 1100, (6, False)),
        # the other listing outside every band the range touches: the bounds meet, and the
        # total is exact past the limit, without counting
        ("500000", 1000, (6, True)),
    ],
)
def test_a_price_range_past_the_limit_in_whole_bands_is_not_counted(
    anonymous_client, settings, other_price, min_price, expected
):
    # given more listings than the limit in bands wholly inside a price range, and another
    settings.PROPERTY_LIST_EXACT_COUNT_LIMIT = 3
    ListingFactory.create_batch(6, price=Decimal("2000"))
    ListingFactory(price=Decimal(other_price))

    # when a visitor asks for the range
    body = anonymous_client.get(PROPERTIES_URL, {"minPrice": min_price, "maxPrice": 100000}).json()

    # then the total is the groups' (an estimate or exact), and the page holds the six
    assert (body["totalItems"], body["totalItemsExact"]) == expected
    assert len(body["properties"]) == 6


@pytest.mark.parametrize(
    ("prices", "outside"),
    [
        ((None, None), {}),
        (("1000", None), {}),
        (("1050", None), {"below": Decimal("1200")}),
        ((None, "2200"), {"above": Decimal("2200")}),
        ((None, "2199.99"), {"above": Decimal("1800")}),
        (("1050", "2500"), {"below": Decimal("1200"), "above": Decimal("2200")}),
        (("1050", "1150"), None),
    ],
)
def test_the_matches_left_to_count_lie_outside_the_whole_bands(prices, outside):
    # given a price range (bands: ... 1,000 to 1,200, 1,200 to 1,500, 1,500 to 1,800, 1,800 to
    # 2,200, 2,200 to 2,700 ...)
    low, high = (None if price is None else Decimal(price) for price in prices)
    search = groups.GroupedSearch(min_price=low, max_price=high)

    # when the matches left to count past the whole bands are asked for
    edges = search.outside_edges()

    # then they are the prices below and above them (None: every match, no whole band)
    assert edges == outside


@pytest.mark.parametrize(
    ("search", "expected"),
    [
        ({"minPrice": 1050}, 4),
        ({"minPrice": 1050, "maxPrice": 2500}, 4),
        ({"minPrice": 1000, "maxPrice": 2199.99}, 5),
        ({"minPrice": 1050, "maxPrice": 1150}, 1),
        ({"maxPrice": 1100}, 3),
    ],
)
def test_ranges_cutting_through_bands_are_counted_exactly(
    anonymous_client, settings, search, expected
):
    # given listings inside whole bands and on both sides of a range's edges
    settings.PROPERTY_LIST_EXACT_COUNT_LIMIT = 3
    for price in ("1000", "1020", "1100", "1500", "1600", "2300"):
        ListingFactory(price=Decimal(price))

    # when a visitor searches a range that cuts through bands
    body = anonymous_client.get(PROPERTIES_URL, {**search, "limit": 10}).json()

    # then within the limit the count is exact, and past it the page shows them all
    matches = len(body["properties"])
    assert matches == expected
    if expected <= 3:
        assert (body["totalItems"], body["totalItemsExact"]) == (expected, True)
    else:
        assert body["totalItems"] > 3


def test_a_price_range_the_bands_leave_open_is_counted(anonymous_client, settings):
    # given listings on both sides of a price inside one band (1,000 to 1,200)
    settings.PROPERTY_LIST_EXACT_COUNT_LIMIT = 10
    ListingFactory.create_batch(3, price=Decimal("1000"))
    ListingFactory.create_batch(2, price=Decimal("1100"))

    # when a visitor asks for the upper ones
    body = anonymous_client.get(PROPERTIES_URL, {"minPrice": 1050}).json()

    # then their matches are counted, exactly
    assert (body["totalItems"], body["totalItemsExact"]) == (2, True)


@pytest.mark.parametrize(
    ("search", "expected"),
    [
        ({"type": "house"}, 2),
        ({"type": "house", "minBedrooms": 4}, 1),
        ({"minBedrooms": 0}, 3),
        ({"municipality": " SEGOVIA "}, 2),
        ({"categoryId": "shops"}, 1),
        ({"transactionType": "SALE", "maxPrice": 1000}, 1),
        ({"type": "land", "municipality": "madrid"}, 0),
    ],
)
def test_searches_counted_from_the_groups_match_their_listings(
    anonymous_client, settings, search, expected
):
    # given listings of several kinds, towns, bedrooms and categories
    settings.PROPERTY_LIST_EXACT_COUNT_LIMIT = 1
    shops = CategoryFactory(name="Shops")
    house = ListingFactory(municipality="Segovia")
    TypeSpecificRecordFactory(property=house, kind=PropertyType.HOUSE, bedrooms=4)
    big = ListingFactory(price=Decimal("900"))
    TypeSpecificRecordFactory(property=big, kind=PropertyType.HOUSE, bedrooms=2)
    flat = ListingFactory(municipality="segovia", category=shops)
    TypeSpecificRecordFactory(property=flat, kind=PropertyType.APARTMENT, bedrooms=0)
    TypeSpecificRecordFactory(property=ListingFactory(), kind=PropertyType.OFFICE)
    if "categoryId" in search:
        search = {**search, "categoryId": shops.id}

    # when a visitor searches
    body = anonymous_client.get(PROPERTIES_URL, {**search, "limit": 10}).json()

    # then the total is the exact number of listings the page shows
    assert (body["totalItems"], body["totalItemsExact"]) == (expected, True)
    assert len(body["properties"]) == expected


def test_owners_and_admins_counts_include_the_listings_only_they_see(
    anonymous_client, admin_client, settings
):
    # given public listings and pending ones
    settings.PROPERTY_LIST_EXACT_COUNT_LIMIT = 10
    ListingFactory.create_batch(2)
    ListingFactory.create_batch(3, status=PropertyStatus.PENDING)

    # when a visitor and an admin make the same search
    visitor = anonymous_client.get(PROPERTIES_URL, {"transactionType": "SALE"}).json()
    admin = admin_client.get(PROPERTIES_URL, {"transactionType": "SALE"}).json()

    # then each count is of what each sees
    assert (visitor["totalItems"], visitor["totalItemsExact"]) == (2, True)
    assert (admin["totalItems"], admin["totalItemsExact"]) == (5, True)


@pytest.mark.parametrize(("limit", "sorted_whole"), [(10, True), (3, False)])
def test_more_matches_than_the_limit_are_walked_even_when_counted_exactly(
    anonymous_client, settings, monkeypatch, limit, sorted_whole
):
    # given six listings for sale, counted exactly by the groups, and walks that would
    # always be judged dearer than sorting
    settings.PROPERTY_LIST_EXACT_COUNT_LIMIT = limit
    monkeypatch.setattr(pages, "WALK_UNEVENNESS", 10**9)
    ListingFactory.create_batch(6, transaction_type=TransactionType.SALE)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE listings_property")

    # when a visitor asks for them by price
    with CaptureQueriesContext(connection) as queries:
        body = anonymous_client.get(
            PROPERTIES_URL, {"transactionType": "SALE", "sort": "price"}
        ).json()

    # then they are sorted whole only within the limit; past it the index is walked
    assert (body["totalItems"], body["totalItemsExact"]) == (6, True)
    sorted_after = any('COALESCE("listings_property".' in query["sql"] for query in queries)
    assert sorted_after is sorted_whole
