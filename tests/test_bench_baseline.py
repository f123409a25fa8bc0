"""The raw baseline of the benchmark (bench/raw_app.py) counts by the platform's rule:
exactly up to the limit, given up after the timeout, the planner's estimate past either."""

import datetime
from contextlib import nullcontext
from types import SimpleNamespace

import orjson
import psycopg
import pytest
from django.db import connection
from psycopg.rows import tuple_row

from bench import raw_app
from listings.models import Property, PropertyStatus
from tests.factories import ListingFactory

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]

PUBLIC, _ = raw_app.where_clause({})
# A drawn area round some of the listings east of the centre of Madrid.
TRIANGLE = "-3.71,40.41,-3.66,40.41,-3.68,40.43,-3.71,40.41"
# Each matching row costs 10 ms to test: more than a 1 ms timeout for two rows.
SLOW = f"{PUBLIC} AND pg_sleep(0.01) IS NOT NULL"


@pytest.fixture
def baseline_connection():
    """A connection of the baseline's kind (autocommit, tuples) to the test database."""
    settings = connection.settings_dict
    with psycopg.connect(
        dbname=settings["NAME"],
        host=settings["HOST"],
        port=settings["PORT"],
        user=settings["USER"],
        password=settings["PASSWORD"],
        autocommit=True,
        row_factory=tuple_row,
    ) as baseline:
        yield baseline


@pytest.fixture
def listings(db):
    """Four public listings and one waiting for approval."""
    ListingFactory.create_batch(4)
    ListingFactory(status=PropertyStatus.PENDING)


def test_up_to_the_limit_the_public_listings_are_counted_exactly(
    listings, baseline_connection, monkeypatch
):
    monkeypatch.setattr(raw_app, "EXACT_COUNT_LIMIT", 4)

    assert raw_app.count(baseline_connection, PUBLIC, []) == (4, True)


def test_past_the_limit_the_count_is_an_estimate_above_it(
    listings, baseline_connection, monkeypatch
):
    monkeypatch.setattr(raw_app, "EXACT_COUNT_LIMIT", 3)

    total, exact = raw_app.count(baseline_connection, PUBLIC, [])

    assert exact is False
    assert total >= 4


def test_a_count_past_its_timeout_is_given_up_and_the_timeout_ends_with_it(
    listings, baseline_connection, monkeypatch
):
    # given a count that takes longer than its 1 ms
    monkeypatch.setattr(raw_app, "COUNT_TIMEOUT_MS", 1)

    # when it is counted
    total, exact = raw_app.count(baseline_connection, SLOW, [])

    # then it is the planner's estimate, and the connection has no timeout left
    assert exact is False
    assert total >= 0
    assert baseline_connection.execute("SHOW statement_timeout").fetchone() == ("0",)
    monkeypatch.setattr(raw_app, "COUNT_TIMEOUT_MS", 10_000)
    assert raw_app.count(baseline_connection, PUBLIC, []) == (4, True)


@pytest.fixture
def baseline_pool(baseline_connection, monkeypatch):
    """raw_app's pool, lending the test's baseline connection, and no relevance search's
    paths kept from another test."""
    pool = SimpleNamespace(connection=lambda: nullcontext(baseline_connection))
    monkeypatch.setattr(raw_app, "connection_pool", lambda: pool)
    monkeypatch.setattr(raw_app, "KEPT_PATHS", {})


def same_page_of_both(client, params: dict[str, str]) -> tuple[dict, dict]:
    """The baseline's and the platform's answers to the same page, once both are found to
    list the same listings in the same order."""
    raw = orjson.loads(raw_app.list_page(params, "testserver"))
    response = client.get("/api/v1/properties", params)
    assert response.status_code == 200
    platform = response.json()
    assert [item["id"] for item in raw["properties"]] == [
        item["id"] for item in platform["properties"]
    ]
    return raw, platform


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"page": "2", "limit": "3"},
        {"sort": "price", "limit": "4"},
        {"sort": "-area", "page": "2", "limit": "4"},
        {"sort": "createdAt", "transactionType": "RENT"},
        {"sort": "createdAt", "page": "3", "limit": "2"},
        {"sort": "-createdAt", "page": "4", "limit": "2"},
        {"page": "6", "limit": "2"},
        {"q": "terrace", "limit": "3"},
        {"q": "terrace", "page": "2", "limit": "3"},
        {"q": "terrace", "page": "3", "limit": "3"},
        {"q": "terrace", "sort": "-price", "page": "2", "limit": "2"},
        {"polygon": "-3.71,40.41,-3.66,40.41,-3.68,40.43,-3.71,40.41", "limit": "3"},
        {"polygon": "-3.71,40.41,-3.66,40.41,-3.68,40.43,-3.71,40.41", "sort": "price"},
        {"polygon": TRIANGLE, "sort": "-area", "page": "2", "limit": "2"},
        {"polygon": TRIANGLE, "page": "9", "limit": "2"},
        {"bbox": "-3.71,40.40,-3.67,40.43", "minPrice": "110000", "limit": "2"},
        {"bbox": "-3.71,40.40,-3.67,40.43", "transactionType": "RENT", "page": "2", "limit": "2"},
    ],
)
def test_the_baseline_reads_the_same_page_as_the_platform(
    baseline_pool, anonymous_client, params, settings, monkeypatch
):
    # Time enough for every count, however busy the machine.
    settings.PROPERTY_LIST_COUNT_TIMEOUT_MS = 10_000
    monkeypatch.setattr(raw_app, "COUNT_TIMEOUT_MS", 10_000)
    # given public listings of both transactions, created over four days, some with the
    # searched word, and one listing waiting for approval
    for number in range(9):
        listing = ListingFactory(
            price=100_000 + 7_919 * number % 50_000,
            area=50 + 13 * number % 70,
            transaction_type="RENT" if number % 3 else "SALE",
            title=f"Flat {number} with a terrace" if number % 2 else f"Flat {number}",
            # Eastwards from the centre of Madrid, some inside the searched triangle.
            longitude=-3.7038 + 0.006 * number,
        )
        created = listing.created_at - datetime.timedelta(hours=11 * number)
        Property.objects.filter(pk=listing.pk).update(created_at=created)
    ListingFactory(status=PropertyStatus.PENDING, title="Pending flat with a terrace")

    # when the baseline and the platform are asked for the same page
    raw, platform = same_page_of_both(anonymous_client, params)

    # then both give the same listings in the same order (same_page_of_both), and the same
    # count
    assert {key: value for key, value in raw.items() if key != "properties"} == {
        key: platform[key] for key in raw if key != "properties"
    }


@pytest.mark.parametrize("page", ["1", "2"])
def test_past_the_limit_the_baseline_estimates_a_drawn_area_as_the_platform_does(
    baseline_pool, anonymous_client, settings, monkeypatch, page
):
    # given more listings in a drawn area than the exact-count limit
    settings.PROPERTY_LIST_EXACT_COUNT_LIMIT = 2
    monkeypatch.setattr(raw_app, "EXACT_COUNT_LIMIT", 2)
    ListingFactory.create_batch(5, longitude=-3.68, latitude=40.415)
    params = {"polygon": TRIANGLE, "limit": "2", "page": page}

    # when the baseline and the platform are asked for the same page
    raw, platform = same_page_of_both(anonymous_client, params)

    # then both give the same listings (same_page_of_both), and an estimate above the limit
    assert len(raw["properties"]) == 2
    assert (raw["totalItemsExact"], platform["totalItemsExact"]) == (False, False)
    assert raw["totalItems"] >= 3 and platform["totalItems"] >= 3


@pytest.mark.parametrize("gathered", [False, True])
@pytest.mark.parametrize("page", ["1", "2"])
def test_the_baseline_tries_a_recent_slice_as_the_platform_does(
    baseline_pool,
    baseline_connection,
    anonymous_client,
    garden_listings,
    settings,
    monkeypatch,
    gathered,
    page,
):
    # given a window of two, and fourteen matches among a hundred listings, every seventh
    # or the oldest
    settings.SEARCH_RANK_WINDOW = 2
    monkeypatch.setattr(raw_app, "SEARCH_RANK_WINDOW", 2)
    garden_listings(gathered=gathered)
    params = {"q": "garden", "limit": "1", "page": page}
    where, arguments = raw_app.where_clause(params)

    # when the baseline and the platform are asked for the same page
    paths = raw_app.window_paths(baseline_connection, where, arguments)
    raw, platform = same_page_of_both(anonymous_client, params)

    # then the baseline, too, tries a recent slice, then every match; and both give the
    # same listing (same_page_of_both) and the same count
    assert [path[0].endswith(raw_app.IN_RECENT_SLICE) for path in paths] == [True, False]
    assert (raw["totalItems"], raw["totalItemsExact"]) == (2, True)
    assert (platform["totalItems"], platform["totalItemsExact"]) == (2, True)


@pytest.mark.parametrize(
    ("params", "counted"),
    [
        ({"polygon": TRIANGLE}, True),
        ({"bbox": "-4,40,-3,41", "minPrice": "1"}, True),
        ({"bbox": "-4,40,-3,41", "transactionType": "RENT", "type": "house", "page": "2"}, False),
        ({"transactionType": "RENT"}, False),
    ],
)
def test_the_baseline_reads_a_map_search_with_its_count_where_the_platform_does(params, counted):
    # a drawn area, or a box with filters the map cells do not hold
    assert raw_app.counted_with_its_page(params) is counted


def test_the_baseline_reads_a_drawn_areas_page_and_count_in_one_pass(listings, baseline_connection):
    # given four public listings in Madrid (and one waiting for approval)
    where, arguments = raw_app.where_clause({"polygon": "-4,40,-3,40,-3,41,-4,41,-4,40"})

    # when the second page of two is read with its count
    rows, total = raw_app.counted_rows(
        baseline_connection, where, arguments, "p.created_at DESC, p.id DESC", page=2, limit=2
    )

    # then the page's rows each carry the exact count
    assert total == 4
    assert [row[-1] for row in rows] == [4, 4]
