"""A map search the map cells do not count (a drawn area, a circle, a box with other filters):
its page and its count from one pass over its matches (listings.search.pages.counted_page_ids)."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from listings.models import Property
from listings.search.counting import SearchCount
from listings.search.pages import counted_page_ids
from listings.search.params import SORTS
from tests.factories import ListingFactory
from tests.properties.support import PROPERTIES_URL, ids, make_listings

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_only]

# A drawn area round Madrid, where the factory puts listings, and one far from it.
AROUND_MADRID = "-4.5,40,-3,40,-3,41,-4.5,41,-4.5,40"
IN_THE_SEA = "-20,30,-19,30,-19,31,-20,31,-20,30"


@pytest.mark.django_db(transaction=True)
def test_a_drawn_area_is_counted_and_paged_by_one_statement(anonymous_client):
    # given five listings in the area and one outside it, and no transaction open
    newest_first = make_listings(5)
    ListingFactory(latitude=43.0, longitude=-8.0)

    # when a visitor reads the second page of the area
    with CaptureQueriesContext(connection) as queries:
        response = anonymous_client.get(
            PROPERTIES_URL, {"polygon": AROUND_MADRID, "limit": 2, "page": 2}
        )

    # then the page's ids and the count come from one statement, in a transaction of its
    # own whose first statement gives it its time and plans it for its values; the page's
    # rows are read after it, by their ids, with the plan their statement keeps
    assert response.status_code == 200
    statements = [query["sql"] for query in queries]
    shape = [
        ["BEGIN"],
        [
            "set_config('statement_timeout', '25', true)",
            "set_config('plan_cache_mode', 'force_custom_plan', true)",
        ],
        ["COUNT(*) OVER ()"],
        ["COMMIT"],
        ["FROM listings_property_row WHERE id IN"],
    ]
    assert len(statements) == len(shape), [statement[:80] for statement in statements]
    for statement, parts in zip(statements, shape, strict=True):
        assert all(part in statement for part in parts), (parts, statement[:300])
    assert sum("poly_contain_pt" in statement for statement in statements) == 1
    body = response.json()
    assert ids(response) == [listing.id for listing in newest_first[2:4]]
    assert (body["totalItems"], body["totalItemsExact"], body["totalPages"]) == (5, True, 3)


@pytest.mark.parametrize(("page", "expected"), [(1, 2), (3, 1), (4, 0), (9, 0)])
def test_every_page_of_a_drawn_area_carries_its_exact_count(anonymous_client, page, expected):
    # given five listings in the area
    newest_first = make_listings(5)

    # when a page within the area's listings, at their end or past it is read
    response = anonymous_client.get(
        PROPERTIES_URL, {"polygon": AROUND_MADRID, "limit": 2, "page": page}
    )

    # then it holds what is left, and the count is exact on every page
    assert response.status_code == 200
    body = response.json()
    assert ids(response) == [listing.id for listing in newest_first[(page - 1) * 2 :][:expected]]
    assert (body["totalItems"], body["totalItemsExact"], body["currentPage"]) == (5, True, page)


def test_an_area_without_listings_is_an_empty_exact_page(anonymous_client):
    # given listings elsewhere
    make_listings(3)

    # when an area without any is searched
    response = anonymous_client.get(PROPERTIES_URL, {"polygon": IN_THE_SEA})

    # then
    body = response.json()
    assert (body["properties"], body["totalItems"], body["totalItemsExact"]) == ([], 0, True)


@pytest.mark.parametrize("page", [1, 2, 3])
def test_past_the_exact_limit_an_area_is_estimated_and_its_page_still_read(
    anonymous_client, settings, page
):
    # given more listings in the area than the exact-count limit
    settings.PROPERTY_LIST_EXACT_COUNT_LIMIT = 3
    newest_first = make_listings(6)

    # when a page of the area is read
    response = anonymous_client.get(
        PROPERTIES_URL, {"polygon": AROUND_MADRID, "limit": 2, "page": page}
    )

    # then the count is an estimate above the limit, and the page the true one
    body = response.json()
    assert body["totalItemsExact"] is False
    assert body["totalItems"] >= 4
    assert ids(response) == [listing.id for listing in newest_first[(page - 1) * 2 : page * 2]]


@pytest.mark.parametrize("sort", [*SORTS])
@pytest.mark.parametrize("offset", [0, 2, 4])
def test_a_counted_page_keeps_every_sort_order(sort, offset):
    # given listings whose prices, areas and ages differ, some of them equal
    for number in range(6):
        ListingFactory(price=Decimal(1000 + number % 3), area=Decimal(50 + number % 2))
    listings = Property.objects.order_by(*SORTS[sort])

    # when a page is read with its count
    page, count = counted_page_ids(listings, offset=offset, limit=2)

    # then it is the page of the same order, and the count is exact
    assert page == list(listings.values_list("pk", flat=True)[offset : offset + 2])
    assert (count.total, count.exact) == (6, True)


@pytest.mark.django_db(transaction=True)
def test_a_counted_page_that_takes_too_long_is_given_up_for_an_estimate(settings):
    # given a search whose every row costs 20 ms to test, and a 5 ms limit on counting
    settings.PROPERTY_LIST_COUNT_TIMEOUT_MS = 5
    ListingFactory.create_batch(2)
    slow = Property.objects.extra(where=["pg_sleep(0.02) IS NOT NULL"]).order_by("-created_at")

    # when a page is read with its count
    with CaptureQueriesContext(connection) as queries:
        page, count = counted_page_ids(slow, offset=0, limit=10)

    # then the page is left to be read past an estimate, made in a transaction planned for
    # its values as the pass was, and the connection works as before
    assert page is None
    assert isinstance(count, SearchCount) and count.exact is False
    statements = [query["sql"] for query in queries]
    estimate = next(n for n, sql in enumerate(statements) if sql.startswith("EXPLAIN"))
    assert statements[estimate - 2 : estimate] == [
        "BEGIN",
        "SELECT set_config('plan_cache_mode', 'force_custom_plan', true)",
    ]
    assert statements[estimate + 1] == "COMMIT"
    assert settings_of(connection) == ("0", "auto")
    assert Property.objects.count() == 2


def settings_of(connection) -> tuple[str, str]:
    """The connection's statement timeout and plan mode."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_setting('statement_timeout'), current_setting('plan_cache_mode')"
        )
        return cursor.fetchone()


def test_a_counted_page_inside_a_transaction_puts_its_settings_back():
    # given a listing, and a transaction open (the test's)
    ListingFactory()
    listings = Property.objects.order_by("-created_at")

    # when a page is read with its count
    page, count = counted_page_ids(listings, offset=0, limit=10)

    # then the rest of the transaction has the timeout and the plan mode it had before
    assert (len(page), count.total) == (1, 1)
    assert settings_of(connection) == ("0", "auto")
