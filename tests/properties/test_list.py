"""GET /properties: the envelope, the shape of a list item, default order and pagination."""

import datetime
import json
import math
from decimal import Decimal

import pytest
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from djangorestframework_camel_case.render import CamelCaseJSONRenderer

from config.api.renderers import CamelCasedJSONRenderer
from listings import selectors
from listings.api.serializers import PropertyListItemSerializer, property_list_items
from listings.models import Property, PropertyStatus, PropertyType, TransactionType
from listings.search import pages
from listings.search.counting import SearchCount, capped_count
from listings.search.pages import page_ids, sorted_after_filtering
from listings.search.params import SORTS
from tests.api.support import assert_problem
from tests.factories import ImageFactory, ListingFactory, TypeSpecificRecordFactory
from tests.properties.support import (
    LIST_ITEM_KEYS,
    LIST_KEYS,
    PROPERTIES_URL,
    RECORD_FIELDS,
    assert_validation_error,
    common_fields,
    ids,
    is_json_number,
    make_listings,
    records_payload,
)

pytestmark = pytest.mark.django_db

# What an order taken away from the indexes looks like in SQL (sorted_after_filtering).
SORTED_AFTER_FILTERING = 'COALESCE("listings_property".'
# A filter that every listing of these tests passes and that listings.groups does not hold:
# such searches are counted from their matches.
UNGROUPED = {"minArea": 0}


def test_list_envelope_has_exactly_the_documented_keys(anonymous_client):
    # given
    make_listings(3)

    # when
    response = anonymous_client.get(PROPERTIES_URL)

    # then
    assert response.status_code == 200
    body = response.json()
    assert set(body) == LIST_KEYS
    assert body["totalItems"] == 3
    assert body["totalPages"] == 1
    assert body["itemsPerPage"] == 10
    assert body["currentPage"] == 1
    assert len(body["properties"]) == 3


def test_list_item_is_the_listing_with_its_photos_and_record(anonymous_client, owner_record):
    # given
    listing = ListingFactory(owner=owner_record, price="199999.99", area="87.25")
    record = TypeSpecificRecordFactory(property=listing, kind=PropertyType.APARTMENT)
    first_image = ImageFactory(property=listing, position=0)
    second_image = ImageFactory(property=listing, position=1)

    # when
    response = anonymous_client.get(PROPERTIES_URL)

    # then
    assert response.status_code == 200
    [item] = response.json()["properties"]
    assert set(item) == LIST_ITEM_KEYS
    assert item == {
        **common_fields(listing),
        "type": "apartment",
        "images": [
            {"id": first_image.id, "url": f"http://testserver{first_image.file.url}"},
            {"id": second_image.id, "url": f"http://testserver{second_image.file.url}"},
        ],
        **records_payload(record),
    }
    assert all(image["url"].startswith("http://testserver/") for image in item["images"])


def test_list_item_record_key_holds_id_property_id_and_the_kind_fields(anonymous_client):
    # given
    listings = {kind: ListingFactory() for kind in PropertyType.values}
    records = {
        kind: TypeSpecificRecordFactory(property=listing, kind=kind)
        for kind, listing in listings.items()
    }

    # when
    response = anonymous_client.get(PROPERTIES_URL)

    # then
    assert response.status_code == 200
    items = {item["id"]: item for item in response.json()["properties"]}
    assert len(items) == 7
    for kind, listing in listings.items():
        item = items[listing.id]
        assert item["type"] == kind
        assert {key: item[key] for key in records_payload(None)} == records_payload(records[kind])
        own_key = next(key for key, value in records_payload(records[kind]).items() if value)
        assert set(item[own_key]) == {"id", "propertyId"} | RECORD_FIELDS[kind]


def test_list_item_without_record_has_null_type_and_null_records(anonymous_client):
    # given
    listing = ListingFactory()

    # when
    response = anonymous_client.get(PROPERTIES_URL)

    # then
    [item] = response.json()["properties"]
    assert item == {**common_fields(listing), "type": None, "images": [], **records_payload(None)}


def test_list_numbers_are_json_numbers_and_timestamps_end_in_z(anonymous_client):
    # given
    ListingFactory(price="1500.50", area="45.00", latitude=41.38, longitude=2.17)

    # when
    response = anonymous_client.get(PROPERTIES_URL)

    # then
    [item] = response.json()["properties"]
    for key in ("price", "area", "latitude", "longitude"):
        assert is_json_number(item[key]), key
    assert item["price"] == 1500.5
    assert item["area"] == 45.0
    assert item["createdAt"].endswith("Z")
    assert item["updatedAt"].endswith("Z")


def test_list_default_order_is_newest_first(anonymous_client):
    # given
    newest_first = make_listings(4)

    # when
    response = anonymous_client.get(PROPERTIES_URL)

    # then
    assert ids(response) == [listing.id for listing in newest_first]


def test_list_listings_created_at_the_same_moment_are_ordered_by_id_descending(anonymous_client):
    # given
    listings = ListingFactory.create_batch(4)
    moment = timezone.now() - datetime.timedelta(hours=1)
    Property.objects.update(created_at=moment)

    # when
    response = anonymous_client.get(PROPERTIES_URL)

    # then
    assert ids(response) == sorted((listing.id for listing in listings), reverse=True)


def test_list_default_page_is_one_and_default_limit_is_ten(anonymous_client):
    # given
    newest_first = make_listings(15)

    # when
    response = anonymous_client.get(PROPERTIES_URL)

    # then
    body = response.json()
    assert {key: body[key] for key in LIST_KEYS - {"properties"}} == {
        "totalItems": 15,
        "totalItemsExact": True,
        "totalPages": 2,
        "itemsPerPage": 10,
        "currentPage": 1,
    }
    assert ids(response) == [listing.id for listing in newest_first[:10]]


def test_list_second_page_holds_the_rest(anonymous_client):
    # given
    newest_first = make_listings(15)

    # when
    response = anonymous_client.get(PROPERTIES_URL, {"page": 2})

    # then
    body = response.json()
    assert body["currentPage"] == 2
    assert body["totalItems"] == 15
    assert ids(response) == [listing.id for listing in newest_first[10:]]


@pytest.mark.parametrize(("total", "limit"), [(7, 3), (6, 3), (1, 1), (10, 100), (101, 100)])
def test_list_total_pages_is_the_ceiling_of_items_over_limit(anonymous_client, total, limit):
    # given
    make_listings(total)

    # when
    response = anonymous_client.get(PROPERTIES_URL, {"limit": limit})

    # then
    body = response.json()
    assert body["totalItems"] == total
    assert body["totalPages"] == math.ceil(total / limit)
    assert body["itemsPerPage"] == limit
    assert len(body["properties"]) == min(total, limit)


def test_list_last_partial_page(anonymous_client):
    # given
    newest_first = make_listings(7)

    # when
    response = anonymous_client.get(PROPERTIES_URL, {"page": 3, "limit": 3})

    # then
    body = response.json()
    assert ids(response) == [newest_first[6].id]
    assert body["totalPages"] == 3
    assert body["currentPage"] == 3


def test_list_page_past_the_end_is_empty_with_the_right_totals(anonymous_client):
    # given
    make_listings(3)

    # when
    response = anonymous_client.get(PROPERTIES_URL, {"page": 5, "limit": 2})

    # then
    assert response.status_code == 200
    assert response.json() == {
        "properties": [],
        "totalItems": 3,
        "totalItemsExact": True,
        "totalPages": 2,
        "itemsPerPage": 2,
        "currentPage": 5,
    }


def test_list_without_listings_has_zero_pages(anonymous_client):
    # given no listing at all

    # when
    response = anonymous_client.get(PROPERTIES_URL)

    # then
    assert response.status_code == 200
    assert response.json() == {
        "properties": [],
        "totalItems": 0,
        "totalItemsExact": True,
        "totalPages": 0,
        "itemsPerPage": 10,
        "currentPage": 1,
    }


def test_list_accepts_a_trailing_slash(anonymous_client):
    # given
    listing = ListingFactory()

    # when
    response = anonymous_client.get(f"{PROPERTIES_URL}/")

    # then
    assert response.status_code == 200
    assert ids(response) == [listing.id]


@pytest.mark.parametrize(
    ("parameters", "field"),
    [
        ({"page": 0}, "page"),
        ({"page": -1}, "page"),
        ({"page": "abc"}, "page"),
        ({"limit": 0}, "limit"),
        ({"limit": 101}, "limit"),
        ({"limit": "abc"}, "limit"),
    ],
)
def test_list_invalid_page_or_limit_is_400_naming_it(anonymous_client, parameters, field):
    # given
    ListingFactory()

    # when
    response = anonymous_client.get(PROPERTIES_URL, parameters)

    # then
    assert_validation_error(response, field)


def test_list_shows_every_visible_status_to_anonymous_users(anonymous_client):
    # given
    visible = [
        ListingFactory(status=PropertyStatus.AVAILABLE),
        ListingFactory(status=PropertyStatus.SOLD),
        ListingFactory(status=PropertyStatus.RENTED, transaction_type=TransactionType.RENT),
    ]
    ListingFactory(status=PropertyStatus.PENDING)
    ListingFactory(status=PropertyStatus.SUSPENDED)

    # when
    response = anonymous_client.get(PROPERTIES_URL)

    # then
    assert set(ids(response)) == {listing.id for listing in visible}
    assert response.json()["totalItems"] == 3


def test_list_items_equal_what_the_model_serializer_makes(rf, owner_record):
    # given listings of every kind, one without a record, with photos in a chosen order
    listings = []
    for kind in PropertyType.values:
        listing = ListingFactory(owner=owner_record, price="1234.50", area="80.00")
        TypeSpecificRecordFactory(property=listing, kind=kind)
        ImageFactory(property=listing, position=2)
        ImageFactory(property=listing, position=0)
        listings.append(listing)
    listings.append(ListingFactory(owner=owner_record))
    request = rf.get(PROPERTIES_URL)
    everything = Property.objects.order_by("-created_at", "-id")

    # when the page is built by the fast path and by the model serializer
    rows = selectors.property_list_rows(list(everything.values_list("pk", flat=True)))
    fast = property_list_items(rows, request=request)
    slow = PropertyListItemSerializer(
        selectors.property_list_loading(everything), many=True, context={"request": request}
    ).data

    # then both render to the same JSON
    assert len(fast) == 8
    assert json.loads(CamelCasedJSONRenderer().render(fast)) == json.loads(
        CamelCaseJSONRenderer().render(slow)
    )


def test_a_count_within_the_exact_limit_is_exact(anonymous_client, settings):
    # given exactly as many listings as the exact-count limit
    settings.PROPERTY_LIST_EXACT_COUNT_LIMIT = 4
    make_listings(4)

    # when
    body = anonymous_client.get(PROPERTIES_URL, {"limit": 2}).json()

    # then
    assert (body["totalItems"], body["totalItemsExact"], body["totalPages"]) == (4, True, 2)


@pytest.mark.postgres_only
def test_a_count_past_the_exact_limit_is_an_estimate_above_the_limit(anonymous_client, settings):
    # given more listings than the exact-count limit
    settings.PROPERTY_LIST_EXACT_COUNT_LIMIT = 3
    newest_first = make_listings(6)

    # when a search the groups cannot count is made
    response = anonymous_client.get(PROPERTIES_URL, {"limit": 2, **UNGROUPED})

    # then the page is exact, the count an estimate no lower than the limit + 1
    body = response.json()
    assert body["totalItemsExact"] is False
    assert body["totalItems"] >= 4
    assert body["totalPages"] == math.ceil(body["totalItems"] / 2)
    assert ids(response) == [listing.id for listing in newest_first[:2]]


def test_past_the_limit_postgresql_estimates_and_sqlite_counts(anonymous_client, settings):
    # given more listings than the exact-count limit
    settings.PROPERTY_LIST_EXACT_COUNT_LIMIT = 3
    make_listings(6)

    # when a search the groups cannot count is made
    body = anonymous_client.get(PROPERTIES_URL, {"limit": 2, **UNGROUPED}).json()

    # then PostgreSQL estimates; SQLite, which has no estimate, counts
    if connection.vendor == "postgresql":
        assert body["totalItemsExact"] is False
    else:
        assert (body["totalItems"], body["totalItemsExact"]) == (6, True)


@pytest.mark.postgres_only
def test_a_count_that_takes_too_long_is_given_up_and_the_connection_stays_usable():
    # given a search whose every row costs 20 ms to test, and a 5 ms limit on counting
    ListingFactory.create_batch(2)
    slow = Property.objects.extra(where=["pg_sleep(0.02) IS NOT NULL"])

    # when it is counted
    count = capped_count(slow, 10, timeout_ms=5)

    # then the count is given up, and the connection works with its timeout as before
    assert count.matches is None
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] == "0"
    assert Property.objects.count() == 2
    counted = capped_count(Property.objects.all(), 10, timeout_ms=1000)
    assert counted.matches == 2
    assert counted.table_rows is not None
    # and a count inside a transaction (this test's) leaves the timeout as it found it
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] == "0"


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_the_counts_timeout_ends_with_the_count():
    # given listings, and no transaction open (as a web request runs)
    ListingFactory.create_batch(2)
    slow = Property.objects.extra(where=["pg_sleep(0.02) IS NOT NULL"])

    # when a count is made, and another one is given up
    counted = capped_count(Property.objects.all(), 10, timeout_ms=1000)
    given_up = capped_count(slow, 10, timeout_ms=5)

    # then the connection's timeout is back to none after each
    assert (counted.matches, given_up.matches) == (2, None)
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] == "0"
        assert connection.get_autocommit()


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_timeout_firing_as_a_count_ends_never_cancels_the_next_statement():
    # given counts whose work ranges around their 1 ms limit (a series of 400 to 111,000
    # numbers counted for the one listing, 10 % more each time: a fast machine counts
    # 16,000 within the limit), so that the timeout fires now during one, now just as it
    # ends
    ListingFactory()
    outcomes = {"counted": 0, "given up": 0}

    # when each is counted, followed by a read on the same connection
    for attempt in range(600):
        numbers = int(400 * 1.1 ** (attempt % 60))
        work = Property.objects.extra(
            where=["(SELECT count(*) FROM generate_series(1, %s)) > 0"], params=[numbers]
        )
        counted = capped_count(work, 10, timeout_ms=1)
        outcomes["counted" if counted.matches == 1 else "given up"] += 1
        assert not Property.objects.filter(pk="no-such-listing").exists()

    # then no read was cancelled by a count's timeout (each would have raised), and the
    # counts were as the limit made them: the short ones finished, the long ones given up
    assert outcomes["counted"] > 0
    assert outcomes["given up"] > 0


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_a_timed_count_runs_in_its_own():
    # given listings, and no transaction open (as a web request runs)
    ListingFactory.create_batch(3)
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        before = cursor.fetchone()[0]

    # when a count with a timeout is made
    with CaptureQueriesContext(connection) as queries:
        counted = capped_count(Property.objects.all(), 10, timeout_ms=1000)

    # then the timeout and the count went in one transaction of their own, and the
    # connection's timeout is what it was
    assert counted.matches == 3
    assert counted.table_rows is not None
    statements = [query["sql"] for query in queries]
    assert statements[0] == "BEGIN"
    assert "set_config('statement_timeout'" in statements[1]
    assert "SELECT COUNT(*)" in statements[2]
    assert statements[3] == "COMMIT"
    assert len(statements) == 4
    assert connection.get_autocommit()
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] == before


@pytest.mark.postgres_only
def test_a_page_past_an_estimated_total_is_still_read(anonymous_client, settings):
    # given more listings than the exact-count limit, and an estimate that says fewer
    settings.PROPERTY_LIST_EXACT_COUNT_LIMIT = 2
    newest_first = make_listings(9)

    # when the last page by the true count is asked for, of a search counted from its matches
    response = anonymous_client.get(PROPERTIES_URL, {"page": 3, "limit": 4, **UNGROUPED})

    # then its listing comes back whatever the estimate said
    body = response.json()
    assert body["totalItemsExact"] is False
    assert ids(response) == [newest_first[8].id]


@pytest.mark.parametrize("sort", [*SORTS])
def test_sorted_after_filtering_keeps_every_sort_order(sort):
    # given listings whose prices, areas and ages differ, some of them equal
    for number in range(6):
        ListingFactory(price=Decimal(1000 + number % 3), area=Decimal(50 + number % 2))
    listings = Property.objects.order_by(*SORTS[sort])

    # when the order is taken away from the indexes
    resorted = sorted_after_filtering(listings)

    # then it is the same order, by an expression
    assert list(resorted.values_list("id", flat=True)) == list(
        listings.values_list("id", flat=True)
    )
    assert "COALESCE" in str(resorted.query)


def test_sorted_after_filtering_leaves_orders_on_annotations_alone():
    listings = Property.objects.alias(twice=F("price") * 2).order_by("-twice", "id")

    assert sorted_after_filtering(listings) is listings


@pytest.mark.postgres_only
def test_few_matches_in_a_large_table_are_sorted_not_walked(anonymous_client, monkeypatch):
    # given twenty listings, analysed, of which three are in Segovia, and walks trusted to
    # read what an even spread of the matches would make them read
    monkeypatch.setattr(pages, "WALK_UNEVENNESS", 1)
    make_listings(17)
    in_segovia = [
        ListingFactory(municipality="Segovia", price=Decimal(price)) for price in (3, 1, 2)
    ]
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE listings_property")

    # when the few are asked for by price, and a broad search too
    with CaptureQueriesContext(connection) as few:
        response = anonymous_client.get(
            PROPERTIES_URL, {"municipality": "segovia", "sort": "price"}
        )
    with CaptureQueriesContext(connection) as broad:
        anonymous_client.get(PROPERTIES_URL, {"sort": "price"})

    # then the few are sorted after filtering, in the same order; the broad one is not
    assert ids(response) == [in_segovia[1].id, in_segovia[2].id, in_segovia[0].id]
    assert any(SORTED_AFTER_FILTERING in query["sql"] for query in few.captured_queries)
    assert not any(SORTED_AFTER_FILTERING in query["sql"] for query in broad.captured_queries)


@pytest.mark.postgres_only
def test_a_walk_is_chosen_only_when_even_an_uneven_spread_keeps_it_cheaper(anonymous_client):
    # given twenty listings, analysed, fifteen of them in Segovia: spread evenly, a walk by
    # price would fill the page after reading 10 * 20 / 15 rows, fewer than the 15 matches
    make_listings(5)
    in_segovia = [
        ListingFactory(municipality="Segovia", price=Decimal(price)) for price in range(15, 0, -1)
    ]
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE listings_property")

    # when they are asked for by price
    with CaptureQueriesContext(connection) as queries:
        response = anonymous_client.get(
            PROPERTIES_URL, {"municipality": "segovia", "sort": "price"}
        )

    # then the matches are sorted after filtering: they could lie at the far end of the walk
    assert ids(response) == [listing.id for listing in reversed(in_segovia)][:10]
    assert any(SORTED_AFTER_FILTERING in query["sql"] for query in queries.captured_queries)


@pytest.mark.postgres_only
def test_a_walk_by_date_trusts_an_even_spread(anonymous_client):
    # given twenty listings, analysed, fifteen of them in Segovia: spread evenly along the
    # dates, a walk newest first fills the page after reading 10 * 20 / 15 rows
    make_listings(5)
    in_segovia = [ListingFactory(municipality="Segovia") for _listing in range(15)]
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE listings_property")

    # when they are asked for newest first (the default order)
    with CaptureQueriesContext(connection) as queries:
        response = anonymous_client.get(PROPERTIES_URL, {"municipality": "segovia"})

    # then the walk is kept: dates do not gather by town as prices do
    newest_first = sorted(in_segovia, key=lambda listing: (listing.created_at, listing.id))
    assert ids(response) == [listing.id for listing in reversed(newest_first)][:10]
    assert not any(SORTED_AFTER_FILTERING in query["sql"] for query in queries.captured_queries)


def read_page(listings, *, offset: int, limit: int) -> list[dict]:
    """A page of `listings` as the search reads it, with a count that leaves the order to
    the walk (an estimate: no sorting of the matches themselves)."""
    ids = page_ids(listings, count=SearchCount(1, False), offset=offset, limit=limit)
    return selectors.property_list_rows(ids)


@pytest.mark.parametrize("sort", [*SORTS])
def test_a_page_is_found_by_its_ids_first_in_the_same_order(sort):
    # given listings whose prices, areas and ages differ, some of them equal
    for number in range(8):
        ListingFactory(price=Decimal(1000 + number % 3), area=Decimal(50 + number % 2))
    listings = Property.objects.order_by(*SORTS[sort])

    # when the second page of three is read, plainly and with the order taken from the indexes
    with CaptureQueriesContext(connection) as queries:
        rows = read_page(listings, offset=3, limit=3)
    resorted = read_page(sorted_after_filtering(listings), offset=3, limit=3)

    # then both are the listings the slice holds, in its order, picked by their ids first:
    # the offset is taken over ids alone, and the rows are read by those ids
    expected = list(listings.values_list("id", flat=True)[3:6])
    assert [row["id"] for row in rows] == expected
    assert [row["id"] for row in resorted] == expected
    ids_query, rows_query = (query["sql"] for query in queries.captured_queries[:2])
    assert ids_query.split(" FROM ")[0].startswith('SELECT "listings_property"."id"')
    assert "title" not in ids_query
    assert "OFFSET 3" in ids_query
    assert rows_query.startswith("SELECT id, title, ")
    assert " FROM listings_property_row WHERE id IN (" in rows_query
    assert "OFFSET" not in rows_query


def test_a_page_ordered_on_an_alias_is_found_by_its_ids_first_too():
    # given listings ordered on an alias (as a text search orders by its rank)
    for number in range(5):
        ListingFactory(price=Decimal(1000 + number))
    listings = Property.objects.alias(twice=F("price") * 2).order_by("-twice", "id")

    # when a page is read
    with CaptureQueriesContext(connection) as queries:
        rows = read_page(listings, offset=1, limit=2)

    # then it is the slice: its ids in the alias's order, then their rows
    assert [row["id"] for row in rows] == list(listings.values_list("id", flat=True)[1:3])
    ids_query, rows_query = (query["sql"] for query in queries.captured_queries[:2])
    assert "OFFSET 1" in ids_query
    assert rows_query.startswith("SELECT id, title, ")
    assert " FROM listings_property_row WHERE id IN (" in rows_query
    assert "OFFSET" not in rows_query


# --- How deep a search can be paged ---------------------------------------------------------


@pytest.mark.parametrize(
    "parameters",
    [
        {"page": 100_000_000},
        {"page": 1001},
        {"page": 101, "limit": 100},
        {"page": 5001, "limit": 2},
    ],
)
def test_a_page_past_the_result_window_is_400_naming_the_bound(
    anonymous_client, parameters, django_assert_max_num_queries
):
    # given
    ListingFactory()

    # when a page deeper than 10,000 results is asked for
    with django_assert_max_num_queries(0):
        response = anonymous_client.get(PROPERTIES_URL, parameters)

    # then it is refused before the database is asked for anything
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[
            {
                "field": "page",
                "message": "page * limit may be at most 10000: narrow the search or change its"
                " order to reach further results.",
                "code": "max_value",
            }
        ],
    )


@pytest.mark.parametrize("parameters", [{"page": 1000}, {"page": 100, "limit": 100}])
def test_the_last_page_of_the_result_window_is_read(anonymous_client, parameters):
    # given
    ListingFactory()

    # when
    response = anonymous_client.get(PROPERTIES_URL, parameters)

    # then it is past the end: an empty page with the right totals
    assert response.status_code == 200
    assert response.json()["properties"] == []
    assert response.json()["totalItems"] == 1
