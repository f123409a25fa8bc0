"""The raw baseline of the benchmark (bench/raw_app.py) counts by the platform's rule:
exactly up to the limit, given up after the timeout, the planner's estimate past either."""

import psycopg
import pytest
from django.db import connection
from psycopg.rows import tuple_row

from bench import raw_app
from listings.models import PropertyStatus
from tests.factories import ListingFactory

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]

PUBLIC, _ = raw_app.where_clause({})
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
    assert raw_app.count(baseline_connection, PUBLIC, []) == (4, True)
