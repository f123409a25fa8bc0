"""The listings changelist: queue order, filters, search, thumbnails and a bounded query count."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from listings.models import Property, PropertyStatus, PropertyType, TransactionType
from tests.admin.support import LISTINGS_URL
from tests.factories import (
    CategoryFactory,
    ImageFactory,
    ListingFactory,
    TypeSpecificRecordFactory,
)

pytestmark = pytest.mark.django_db


def listing_created(title: str, status: str, days_ago: int, **fields) -> Property:
    listing = ListingFactory(title=title, status=status, **fields)
    created = timezone.now() - datetime.timedelta(days=days_ago)
    Property.objects.filter(pk=listing.pk).update(created_at=created)
    return listing


def titles_on_page(client, query: str = "") -> list[str]:
    response = client.get(f"{LISTINGS_URL}{query}")
    assert response.status_code == 200
    return [listing.title for listing in response.context["cl"].result_list]


def test_the_queue_shows_pending_listings_first_then_oldest_first(back_office):
    # given listings of several statuses and ages
    listing_created("Available, 9 days", PropertyStatus.AVAILABLE, 9)
    listing_created("Pending, 2 days", PropertyStatus.PENDING, 2)
    listing_created("Suspended, 5 days", PropertyStatus.SUSPENDED, 5)
    listing_created("Pending, 7 days", PropertyStatus.PENDING, 7)
    listing_created("Sold, 1 day", PropertyStatus.SOLD, 1)

    # when the changelist opens with no sorting chosen
    titles = titles_on_page(back_office)

    # then
    assert titles == [
        "Pending, 7 days",
        "Pending, 2 days",
        "Available, 9 days",
        "Suspended, 5 days",
        "Sold, 1 day",
    ]


@pytest.fixture
def filterable_listings():
    """Four listings that differ in one filterable respect each from the first."""
    offices = CategoryFactory(name="Offices")
    base = ListingFactory(title="Base", status=PropertyStatus.PENDING, municipality="Madrid")
    TypeSpecificRecordFactory(property=base, kind=PropertyType.HOUSE)
    other_type = ListingFactory(title="Land plot", municipality="Madrid")
    TypeSpecificRecordFactory(property=other_type, kind=PropertyType.LAND)
    ListingFactory(title="Rental", transaction_type=TransactionType.RENT, municipality="Madrid")
    ListingFactory(title="Office", category=offices, municipality="Sevilla")
    return base


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("?status__exact=PENDING", ["Base"]),
        ("?type_record__kind__exact=land", ["Land plot"]),
        ("?transaction_type__exact=RENT", ["Rental"]),
        ("?municipality=Sevilla", ["Office"]),
        ("?q=rental", ["Rental"]),
        ("?q=Sevilla", ["Office"]),
    ],
)
def test_filters_and_search_narrow_the_list(back_office, filterable_listings, query, expected):
    assert titles_on_page(back_office, query) == expected


def test_the_owner_and_category_filters_narrow_the_list(back_office, filterable_listings):
    # given the base listing's owner and another category
    base = filterable_listings
    offices = Property.objects.get(title="Office").category

    # then
    assert titles_on_page(back_office, f"?owner={base.owner_id}") == ["Base"]
    assert titles_on_page(back_office, f"?category__id__exact={offices.pk}") == ["Office"]
    assert titles_on_page(back_office, f"?q={base.owner.user.email}") == ["Base"]


def test_the_thumbnail_column_shows_the_400px_copy_or_else_the_original(back_office):
    # given one listing whose cover has a 400 px thumbnail, and one whose cover has none
    with_thumbnail = ListingFactory(title="With thumbnail")
    cover = ImageFactory(
        property=with_thumbnail,
        title="Front door",
        position=0,
        thumbnails={"400": "properties/p/images/front-400.jpg"},
    )
    ImageFactory(property=with_thumbnail, title="Second photo", position=1)
    without = ListingFactory(title="Without thumbnail")
    original = ImageFactory(property=without, title=None)

    # when the changelist renders
    body = back_office.get(LISTINGS_URL).content.decode()

    # then each row shows its cover with alt text
    assert (
        '<img src="/media/properties/p/images/front-400.jpg" alt="Front door" height="60" '
        'loading="lazy">'
    ) in body
    assert (
        f'<img src="{original.file.url}" alt="Cover of Without thumbnail" height="60" '
        'loading="lazy">'
    ) in body
    assert "Second photo" not in body
    assert cover.file.url not in body


def make_listings(count: int) -> None:
    """Listings with a type-specific record and two photos each, of distinct owners."""
    for _ in range(count):
        record = TypeSpecificRecordFactory(property=ListingFactory(), kind=PropertyType.HOUSE)
        ImageFactory(property=record.property, position=0, thumbnails={"400": "t/400.jpg"})
        ImageFactory(property=record.property, position=1)


def changelist_queries(client, query: str = "") -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"{LISTINGS_URL}{query}")
    assert response.status_code == 200
    return len(queries)


@pytest.mark.parametrize("query", ["", "?status__exact=AVAILABLE&q=Listing"])
def test_the_changelist_costs_the_same_queries_for_10_and_100_listings(back_office, query):
    # given 10 listings with records and photos
    make_listings(10)
    for_ten = changelist_queries(back_office, query)

    # when there are 100
    make_listings(90)
    for_hundred = changelist_queries(back_office, query)

    # then the page costs the same, small number of queries
    assert for_hundred == for_ten
    assert for_hundred <= 12


@pytest.mark.parametrize("column", range(1, 11))
def test_every_column_sorts_both_ways(back_office, column):
    # given listings with and without records and photos
    make_listings(2)
    ListingFactory(status=PropertyStatus.PENDING)

    # then sorting by any column, either way, renders the page
    for order in (f"{column}", f"-{column}"):
        response = back_office.get(f"{LISTINGS_URL}?o={order}")
        assert response.status_code == 200
        assert len(response.context["cl"].result_list) == 3
