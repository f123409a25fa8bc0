"""The public listings created each day, kept by PostgreSQL (listings.search.days)."""

import collections
import datetime

import pytest
from django.db import connection

from listings import services
from listings.models import HIDDEN_STATUSES, Property, PropertyStatus, PublicListingDay
from tests.factories import ListingFactory

pytestmark = pytest.mark.django_db

MIDNIGHT = datetime.datetime(2026, 3, 1, tzinfo=datetime.UTC)
# Creation times around three midnights (UTC), some shared: a day's first and last
# listings, and listings of the same moment ordered by their ids.
MOMENTS = [
    MIDNIGHT - datetime.timedelta(days=2, hours=5),
    MIDNIGHT - datetime.timedelta(days=1, microseconds=1),
    MIDNIGHT - datetime.timedelta(days=1),
    MIDNIGHT - datetime.timedelta(hours=7),
    MIDNIGHT - datetime.timedelta(microseconds=1),
    MIDNIGHT,
    MIDNIGHT + datetime.timedelta(hours=13, minutes=30),
    MIDNIGHT + datetime.timedelta(days=1) - datetime.timedelta(microseconds=1),
    MIDNIGHT + datetime.timedelta(days=1),
    MIDNIGHT + datetime.timedelta(days=9, hours=2),
]


def created_at(listing: Property, moment: datetime.datetime) -> None:
    Property.objects.filter(pk=listing.pk).update(created_at=moment)


def make_listings(count: int) -> list[Property]:
    """`count` listings over MOMENTS, every fourth one PENDING or SUSPENDED."""
    listings = []
    for number in range(count):
        status = (PropertyStatus.PENDING, PropertyStatus.SUSPENDED)[number % 2]
        listing = ListingFactory(**({"status": status} if number % 4 == 3 else {}))
        created_at(listing, MOMENTS[(number * 7) % len(MOMENTS)])
        listings.append(listing)
    return listings


def expected_days() -> dict[datetime.date, int]:
    """The days recomputed from the listings, in Python: each public listing's UTC date."""
    return dict(
        collections.Counter(
            listing.created_at.astimezone(datetime.UTC).date()
            for listing in Property.objects.exclude(status__in=HIDDEN_STATUSES)
        )
    )


def stored_days() -> dict[datetime.date, int]:
    """The days PostgreSQL keeps, without the ones emptied by deletions and moves."""
    return {day.day: day.listings for day in PublicListingDay.objects.exclude(listings=0)}


@pytest.mark.postgres_only
def test_the_days_follow_every_kind_of_write_to_listings(admin):
    # given listings created around midnights (UTC), hidden ones among them
    listings = make_listings(14)
    assert stored_days() == expected_days()

    # when they are hidden and shown, moved to other days, in bulk, and deleted
    services.property_change_status(property=listings[3], by=admin, status=PropertyStatus.AVAILABLE)
    services.property_change_status(
        property=listings[4], by=admin, status=PropertyStatus.SUSPENDED, reason="Checking"
    )
    created_at(listings[5], MIDNIGHT + datetime.timedelta(days=30))
    Property.objects.filter(pk__in=[listings[6].pk, listings[8].pk]).update(
        created_at=MIDNIGHT - datetime.timedelta(microseconds=1)
    )
    services.property_delete(property=listings[9], by=admin)
    Property.objects.filter(pk=listings[10].pk).delete()

    # then the days are the listings' own, as if counted again
    assert stored_days() == expected_days()


@pytest.mark.postgres_only
def test_the_days_are_utcs_whatever_the_writers_time_zone():
    # given listings created just before and at a midnight (UTC)
    listings = make_listings(6)

    # when a session in a time zone far from UTC (as SQL run by hand may be) moves one to
    # the evening before the midnight and shows a hidden one
    with connection.cursor() as cursor:
        cursor.execute("SET TIME ZONE 'Pacific/Kiritimati'")
        try:
            cursor.execute(
                "UPDATE listings_property SET created_at = %s WHERE id = %s",
                [MIDNIGHT - datetime.timedelta(hours=2), listings[0].pk],
            )
            cursor.execute(
                "UPDATE listings_property SET status = 'AVAILABLE' WHERE id = %s",
                [listings[3].pk],
            )
        finally:
            cursor.execute("SET TIME ZONE 'UTC'")

    # then each listing counts on its day in UTC
    assert stored_days() == expected_days()


@pytest.mark.postgres_only
def test_the_days_follow_the_bulk_seeders_copy(bulk_loaded):
    # given the bulk seeder's COPY, which writes without the ORM: followed batch by batch,
    # or built after the load

    # then the days hold its listings
    assert Property.objects.count() == 60
    assert stored_days() == expected_days()
