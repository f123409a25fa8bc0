"""The owner's dashboard shows each listing's last 30 days: views, favorites, visits, and a
chart of views per day (listings.statistics)."""

import datetime

import pytest
from django.urls import reverse
from django.utils import timezone
from pytest_django.asserts import assertInHTML

from appointments.models import AppointmentStatus
from listings.models import PropertyDailyViews
from tests.factories import AppointmentFactory, FavoriteFactory
from tests.site.conftest import house

pytestmark = pytest.mark.django_db

QUERIES = 9


def test_the_dashboard_shows_each_listings_figures(owner_session, owner):
    busy = house(owner, title="Busy flat")
    quiet = house(owner, title="Quiet flat")
    house(title="Someone else's flat")
    today = timezone.localdate()
    for days_ago, views in [(0, 4), (1, 8), (40, 100)]:
        day = today - datetime.timedelta(days=days_ago)
        PropertyDailyViews.objects.create(property=busy, day=day, views=views)
    FavoriteFactory(property=busy)
    FavoriteFactory(property=busy)
    now = timezone.now()
    for hours, status in enumerate(
        [AppointmentStatus.PENDING, AppointmentStatus.CONFIRMED, AppointmentStatus.CONFIRMED]
    ):
        date = now + datetime.timedelta(days=2, hours=hours)
        AppointmentFactory(property=busy, status=status, date=date)

    response = owner_session.get(reverse("listings:owner-list"))

    assert response.status_code == 200
    page = response.text
    assert page.count('data-testid="listing-statistics"') == 2
    assertInHTML('<td data-testid="views">12</td>', page, count=1)
    assertInHTML('<td data-testid="favorites">2</td>', page, count=1)
    assertInHTML('<td data-testid="visit-requests">3</td>', page, count=1)
    assertInHTML(
        '<td data-testid="visit-outcomes">1 pending, 2 confirmed, 0 completed, 0 cancelled</td>',
        page,
        count=1,
    )
    assertInHTML('<td data-testid="views">0</td>', page, count=1)
    yesterday = (today - datetime.timedelta(days=1)).strftime("%-d %B")
    assert f'aria-label="12 views in 30 days, most (8) on {yesterday}"' in page
    assert 'aria-label="No views in 30 days"' in page
    # the busiest day's bar is the chart's full height, the other half of it
    assert '<rect x="140" y="2" width="4" height="36"></rect>' in page
    assert '<rect x="145" y="20" width="4" height="18"></rect>' in page
    assert f'href="{quiet.get_absolute_url()}"' in page
    assert "Someone else" not in page


@pytest.mark.parametrize("listings", [1, 5])
def test_the_dashboard_takes_the_same_queries_whatever_the_listings_and_figures(
    owner_session, owner, listings, django_assert_num_queries
):
    for number in range(listings):
        listing = house(owner)
        FavoriteFactory(property=listing)
        AppointmentFactory(property=listing)
        PropertyDailyViews.objects.create(
            property=listing, day=timezone.localdate(), views=number + 1
        )

    # session, user, unread notifications, the listings' count, the listings, their photos,
    # then views, favorites and visits
    with django_assert_num_queries(QUERIES):
        response = owner_session.get(reverse("listings:owner-list"))

    assert response.text.count('data-testid="listing-statistics"') == listings
