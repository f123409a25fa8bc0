"""Pages of every public listing by creation date, started at their day from the days
PostgreSQL keeps (listings.search.days)."""

import collections
import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from listings import services
from listings.models import HIDDEN_STATUSES, Property, PropertyStatus, PublicListingDay
from listings.search import SearchParams
from listings.search.days import starts_at_its_day
from tests.factories import ListingFactory
from tests.properties.support import PROPERTIES_URL

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


def reference_ids(*, newest_first: bool) -> list[str]:
    """Every public listing in creation order, ties by id in the same direction."""
    public = Property.objects.exclude(status__in=HIDDEN_STATUSES)
    order = sorted(public, key=lambda listing: (listing.created_at, listing.pk))
    return [listing.pk for listing in (reversed(order) if newest_first else order)]


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


@pytest.mark.parametrize(
    "sort, newest_first", [(None, True), ("-createdAt", True), ("createdAt", False)]
)
@pytest.mark.parametrize("viewer", ["anonymous", "customer"])
def test_every_page_of_every_public_listing_is_the_offsets(clients, viewer, sort, newest_first):
    # given public listings around midnights (UTC), several of one moment, and hidden ones
    make_listings(31)
    expected = reference_ids(newest_first=newest_first)
    assert len(expected) == 24

    # when a visitor or a customer reads every page of them in creation order, and one past
    # the last
    pages = []
    for page in range(1, 11):
        query = {"page": page, "limit": 3} | ({"sort": sort} if sort else {})
        response = clients[viewer].get(PROPERTIES_URL, query)
        assert response.status_code == 200, response.content
        body = response.json()
        assert (body["totalItems"], body["totalItemsExact"]) == (24, True)
        pages.append([item["id"] for item in body["properties"]])

    # then each page is the reference's at its offset
    assert pages == [expected[offset : offset + 3] for offset in range(0, 30, 3)]


@pytest.mark.postgres_only
def test_a_deep_page_of_every_public_listing_starts_at_its_day(anonymous_client):
    # given public listings over several days
    make_listings(24)
    expected = reference_ids(newest_first=True)

    # when a visitor reads a page past the first day's listings
    with CaptureQueriesContext(connection) as queries:
        response = anonymous_client.get(PROPERTIES_URL, {"page": 4, "limit": 4})

    # then the page is the offset's, and its ids come from the days: the count from the
    # listing groups, the ids, the rows
    assert [item["id"] for item in response.json()["properties"]] == expected[12:16]
    statements = [query["sql"] for query in queries.captured_queries]
    assert len(statements) == 3
    assert "listings_publiclistingday" in statements[1]


@pytest.mark.parametrize(
    "params, starts",
    [
        (SearchParams(), True),
        (SearchParams(sort="-createdAt"), True),
        (SearchParams(sort="createdAt"), True),
        (SearchParams(sort="price"), False),
        (SearchParams(transaction_type="RENT"), False),
        (SearchParams(text="garden"), False),
        (SearchParams(municipality="Madrid", sort="createdAt"), False),
    ],
)
def test_only_a_search_with_no_criterion_in_creation_order_starts_at_its_day(params, starts):
    # a search with a criterion is read along its indexes (listings.search.pages); the days
    # are PostgreSQL's alone
    expected = starts and connection.vendor == "postgresql"
    assert starts_at_its_day(params, "default") is expected
