"""Kept statements (config.statements): compiled once, rows as values() gives them, prepared
once per connection on PostgreSQL."""

import os
import subprocess
import sys

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from config.statements import KeptStatement
from listings.models import Property
from tests.factories import ListingFactory

pytestmark = pytest.mark.django_db

STAND_IN = "stand-in for an id"


def listing_by_id() -> KeptStatement:
    listings = Property.objects.filter(pk=STAND_IN).values("id", "title", "price", "created_at")
    return KeptStatement(listings, stand_in=STAND_IN)


def test_rows_are_what_values_gives_for_the_value_put_in():
    # given two listings and a statement compiled once
    first, second = ListingFactory(), ListingFactory()
    statement = listing_by_id()

    # when it is run for each id, and for an id no listing has
    rows = [statement.rows(listing.pk) for listing in (first, second)]
    missing = statement.rows("no-such-listing")

    # then each gives its listing's row, converted as values() converts it
    assert rows == [
        list(Property.objects.filter(pk=listing.pk).values("id", "title", "price", "created_at"))
        for listing in (first, second)
    ]
    assert rows[0][0]["id"] == first.pk
    assert rows[0][0]["price"] == first.price
    assert rows[0][0]["created_at"] == first.created_at
    assert missing == []


def test_a_stand_in_that_is_not_exactly_one_parameter_is_refused():
    # given querysets holding the stand-in twice, and not at all
    twice = Property.objects.filter(pk=STAND_IN, owner_id=STAND_IN).values("id")
    never = Property.objects.filter(pk="another").values("id")

    # then neither can be kept
    for listings in (twice, never):
        with pytest.raises(ValueError, match="exactly one of the parameters"):
            KeptStatement(listings, stand_in=STAND_IN)


def test_its_queries_are_logged_like_any_other():
    # given a listing and its statement
    listing = ListingFactory()
    statement = listing_by_id()

    # when it runs
    with CaptureQueriesContext(connection) as queries:
        statement.rows(listing.pk)

    # then Django saw the one query, with its parameter
    assert len(queries) == 1
    assert listing.pk in queries[0]["sql"]


@pytest.mark.postgres_only
def test_on_postgresql_it_is_prepared_once_and_its_plan_reused():
    # given listings and a statement compiled once
    listings = ListingFactory.create_batch(7)
    statement = listing_by_id()

    # when it runs once for each of them
    for listing in listings:
        assert statement.rows(listing.pk)[0]["id"] == listing.pk

    # then the connection holds it prepared once, and PostgreSQL planned it once per run
    # at first, then reused a generic plan (after five custom ones, its default)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = %s",
            [statement.sql.replace("%s", "$1")],
        )
        assert cursor.fetchall() == [(2, 5)]


@pytest.mark.parametrize(
    ("setting", "threshold"),
    [(None, "0"), ("true", "0"), ("false", "absent")],
)
def test_prepared_statements_follow_the_setting(setting, threshold):
    # given the environment of a PostgreSQL deployment, with and without the setting
    environment = {
        **os.environ,
        "DATABASE_URL": "postgres://someone@db.example.com:5432/estate",
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
    }
    environment.pop("DATABASE_PREPARED_STATEMENTS", None)
    if setting is not None:
        environment["DATABASE_PREPARED_STATEMENTS"] = setting

    # when the settings are read
    read = subprocess.run(
        [
            sys.executable,
            "-c",
            "from django.conf import settings;"
            "print(settings.DATABASES['default']['OPTIONS'].get('prepare_threshold', 'absent'))",
        ],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )

    # then psycopg prepares on first run unless it is turned off
    assert read.stdout.strip() == threshold
