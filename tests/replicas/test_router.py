"""The database router on two real servers (config.routers): public reads to the standby,
everything else to the primary, and the primary again when the standby is down or lags.

A read proves where it went by what it sees: with the standby's replay paused, a row
committed on the primary is on the primary only.
"""

import pytest
from django.db import connections, router
from django.urls import reverse

from accounts.models import User
from config.replica_health import replica_lag
from config.routers import read_database, replica_reads
from listings.models import Property
from tests.factories import ListingFactory
from tests.replicas.conftest import (
    DATABASES,
    LAG_BOUND,
    REPLICA,
    replay_caught_up,
    replay_paused,
    standby_serves_again,
    standby_stopped,
    wait_for,
)

pytestmark = [
    pytest.mark.postgres_only,
    pytest.mark.django_db(transaction=True, databases=DATABASES),
]


def in_recovery(database: str) -> bool:
    """Whether the server behind the alias is a standby."""
    with connections[database].cursor() as cursor:
        cursor.execute("SELECT pg_is_in_recovery()")
        return cursor.fetchone()[0]


def test_public_reads_go_to_the_standby(within_bound):
    # given a listing on both servers
    listing = ListingFactory()
    replay_caught_up()

    with replay_paused():
        # when another is committed on the primary while the standby applies nothing
        unreplicated = ListingFactory()

        # then a public read is the standby's: it finds the first and not the second
        with replica_reads():
            assert read_database() == REPLICA
            assert in_recovery(read_database())
            found = set(Property.objects.values_list("pk", flat=True))
        assert found == {listing.pk}

        # and any other read is the primary's, which has both
        assert set(Property.objects.values_list("pk", flat=True)) == {
            listing.pk,
            unreplicated.pk,
        }


def test_writes_and_who_the_reader_is_go_to_the_primary(within_bound):
    with replica_reads():
        # when a row is written within a public read (a read-only standby would refuse it)
        listing = ListingFactory()

        # then it was written on the primary
        assert router.db_for_write(Property) == "default"
        assert listing._state.db == "default"
        assert Property.objects.using("default").filter(pk=listing.pk).exists()

        # and users are read from the primary even here, while listings are not
        assert router.db_for_read(User) == "default"
        assert router.db_for_read(Property) == REPLICA


def test_reads_outside_a_public_view_go_to_the_primary(routing):
    assert read_database() == "default"
    assert router.db_for_read(Property) == "default"


def test_migrations_run_on_the_primary_only(routing):
    assert router.allow_migrate("default", "listings", model_name="property") is True
    assert router.allow_migrate(REPLICA, "listings", model_name="property") is False


def test_no_replica_configured_reads_from_the_primary(routing, settings):
    # given no replicas (the settings without DATABASE_REPLICA_URLS)
    settings.DATABASE_REPLICAS = []

    # then even public reads go to the primary
    with replica_reads():
        assert read_database() == "default"


def test_a_stopped_standby_is_left_out_until_it_is_back(routing, anonymous_client):
    # given a listing on both servers
    listing = ListingFactory()
    replay_caught_up()

    # when the standby's server is stopped
    with standby_stopped():
        # then public reads go to the primary, and find the listing
        assert replica_lag(REPLICA) is None
        with replica_reads():
            assert read_database() == "default"
            assert Property.objects.get(pk=listing.pk) == listing
        detail = anonymous_client.get(reverse("properties-detail", args=[listing.pk]))
        assert detail.status_code == 200
        assert detail.json()["id"] == listing.pk

    # and once it streams again and has caught up, to the standby
    standby_serves_again()
    with replica_reads():
        assert in_recovery(read_database())
        assert Property.objects.get(pk=listing.pk) == listing


def test_a_standby_lagging_past_the_bound_is_left_out(routing):
    with replay_paused():
        # given a listing committed on the primary that the paused standby has not applied
        listing = ListingFactory()

        # when its replay has waited past the bound
        wait_for(
            lambda: (replica_lag(REPLICA) or 0) > LAG_BOUND, "the standby to lag past the bound"
        )

        # then public reads go to the primary, and find the listing
        with replica_reads():
            assert read_database() == "default"
            assert Property.objects.get(pk=listing.pk) == listing

    # and once it has caught up, to the standby again
    standby_serves_again()
    with replica_reads():
        assert in_recovery(read_database())
        assert Property.objects.get(pk=listing.pk) == listing


def test_a_standby_within_the_bound_serves_reads_though_paused(within_bound):
    with replay_paused():
        # when a listing is committed on the primary only
        listing = ListingFactory()

        # then the standby, behind but within the bound, still serves public reads
        with replica_reads():
            assert read_database() == REPLICA
            assert not Property.objects.filter(pk=listing.pk).exists()
