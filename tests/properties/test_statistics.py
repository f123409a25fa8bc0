"""GET /properties/:id/stats: a listing's views, favorites and visit requests over the last
30 days, for its owner and admins (listings.statistics)."""

import datetime
import itertools

import pytest
from django.utils import timezone

from appointments.models import Appointment, AppointmentStatus
from favorites.models import Favorite
from listings.models import PropertyDailyViews, PropertyStatus
from listings.statistics import WINDOW_DAYS, property_statistics
from tests.api.support import assert_problem
from tests.factories import AppointmentFactory, FavoriteFactory, ListingFactory, UserFactory

pytestmark = pytest.mark.django_db


def stats_url(listing) -> str:
    return f"/api/v1/properties/{listing.pk}/stats"


def at(day: datetime.date, *, hour: int = 12) -> datetime.datetime:
    """A moment of `day` in TIME_ZONE."""
    return timezone.make_aware(datetime.datetime.combine(day, datetime.time(hour)))


def favorite_made(listing, moment: datetime.datetime) -> Favorite:
    favorite = FavoriteFactory(property=listing)
    Favorite.objects.filter(pk=favorite.pk).update(created_at=moment)
    return favorite


HOURS = itertools.count(1)


def visit_requested(listing, moment: datetime.datetime, status: str) -> Appointment:
    """A visit of the listing requested at `moment`, now in `status` (each at an hour of its
    own: visits of one listing may not overlap)."""
    date = timezone.now() + datetime.timedelta(days=3, hours=next(HOURS))
    visit = AppointmentFactory(property=listing, status=status, date=date)
    Appointment.objects.filter(pk=visit.pk).update(created_at=moment)
    return visit


def empty_days(today: datetime.date) -> list[dict]:
    first = today - datetime.timedelta(days=WINDOW_DAYS - 1)
    return [
        {
            "date": (first + datetime.timedelta(days=offset)).isoformat(),
            "views": 0,
            "favorites": 0,
            "visitRequests": 0,
        }
        for offset in range(WINDOW_DAYS)
    ]


@pytest.fixture
def figures(listing):
    """Views, favorites and visits of `listing` on its window's first day, two days ago
    and today, and some just outside the window."""
    today = timezone.localdate()
    first = today - datetime.timedelta(days=WINDOW_DAYS - 1)
    two_days_ago = today - datetime.timedelta(days=2)
    for day, views in [
        (first - datetime.timedelta(days=1), 100),
        (first, 3),
        (two_days_ago, 5),
        (today, 2),
    ]:
        PropertyDailyViews.objects.create(property=listing, day=day, views=views)
    favorite_made(listing, at(first - datetime.timedelta(days=1), hour=23))
    favorite_made(listing, at(first, hour=0))
    favorite_made(listing, at(today))
    visit_requested(listing, at(two_days_ago), AppointmentStatus.CONFIRMED)
    visit_requested(listing, at(two_days_ago), AppointmentStatus.CANCELLED)
    visit_requested(listing, at(today), AppointmentStatus.PENDING)
    visit_requested(listing, at(first - datetime.timedelta(days=3)), AppointmentStatus.COMPLETED)
    # Another listing's figures are its own.
    other = ListingFactory()
    PropertyDailyViews.objects.create(property=other, day=today, views=9)
    favorite_made(other, at(today))
    days = empty_days(today)
    days[0].update(views=3, favorites=1)
    days[-3].update(views=5, visitRequests=2)
    days[-1].update(views=2, favorites=1, visitRequests=1)
    return {
        "propertyId": listing.pk,
        "firstDay": first.isoformat(),
        "lastDay": today.isoformat(),
        "views": 10,
        "favorites": 2,
        "visitRequests": 3,
        "visitOutcomes": {"PENDING": 1, "CONFIRMED": 1, "CANCELLED": 1, "COMPLETED": 0},
        "days": days,
    }


@pytest.mark.parametrize("caller", ["owner", "admin"])
def test_the_owner_and_admins_read_the_statistics(clients, figures, listing, caller):
    response = clients[caller].get(stats_url(listing))

    assert response.status_code == 200
    assert response.json() == figures


def test_a_listing_with_nothing_yet_has_thirty_empty_days(owner_client, listing):
    today = timezone.localdate()

    response = owner_client.get(stats_url(listing))

    assert response.status_code == 200
    assert response.json() == {
        "propertyId": listing.pk,
        "firstDay": (today - datetime.timedelta(days=29)).isoformat(),
        "lastDay": today.isoformat(),
        "views": 0,
        "favorites": 0,
        "visitRequests": 0,
        "visitOutcomes": {"PENDING": 0, "CONFIRMED": 0, "CANCELLED": 0, "COMPLETED": 0},
        "days": empty_days(today),
    }


@pytest.mark.parametrize("caller", ["customer", "other_owner"])
def test_other_users_may_not_read_a_listings_statistics(clients, figures, listing, caller):
    response = clients[caller].get(stats_url(listing))

    body = assert_problem(response, status=403, code="permission_denied")
    assert body["detail"] == "Only the listing's owner and admins may see its statistics."


def test_anonymous_callers_must_sign_in(anonymous_client, listing):
    response = anonymous_client.get(stats_url(listing))

    assert_problem(response, status=401, code="not_authenticated")
    assert response["WWW-Authenticate"] == "Bearer"


@pytest.mark.parametrize("status", [PropertyStatus.PENDING, PropertyStatus.SUSPENDED])
def test_a_hidden_listing_is_not_found_for_others_and_readable_by_its_owner(
    clients, owner_record, status
):
    hidden = ListingFactory(owner=owner_record, status=status)

    for caller in ("customer", "other_owner"):
        assert_problem(clients[caller].get(stats_url(hidden)), status=404, code="not_found")
    assert clients["owner"].get(stats_url(hidden)).status_code == 200
    assert clients["admin"].get(stats_url(hidden)).status_code == 200


def test_an_unknown_listing_is_not_found(owner_client):
    response = owner_client.get("/api/v1/properties/zzzzzzzzzzzzzzzzzzzzzzzzz/stats")

    assert_problem(response, status=404, code="not_found")


def test_the_path_takes_a_trailing_slash_and_refuses_writes(owner_client, listing):
    assert owner_client.get(f"{stats_url(listing)}/").status_code == 200
    assert_problem(owner_client.post(stats_url(listing), {}), status=405, code="method_not_allowed")


@pytest.mark.parametrize("count", [1, 10])
def test_the_statistics_take_the_same_queries_whatever_the_figures(
    owner_client, listing, count, django_assert_num_queries
):
    today = timezone.localdate()
    for offset in range(count):
        day = today - datetime.timedelta(days=offset)
        PropertyDailyViews.objects.create(property=listing, day=day, views=offset + 1)
        favorite_made(listing, at(day))
        visit_requested(listing, at(day), AppointmentStatus.PENDING)

    # the token and its user, the listing, then views, favorites and visits: one query each
    with django_assert_num_queries(5):
        response = owner_client.get(stats_url(listing))

    assert response.status_code == 200
    assert response.json()["visitRequests"] == count


def test_the_window_is_today_and_the_29_days_before_in_the_time_zone(settings, listing):
    settings.TIME_ZONE = "Europe/Madrid"
    today = datetime.date(2026, 3, 29)  # clocks go forward in Madrid that night
    first = datetime.date(2026, 2, 28)
    midnight_first = timezone.make_aware(datetime.datetime(2026, 2, 28))
    midnight_after = timezone.make_aware(datetime.datetime(2026, 3, 30))
    microsecond = datetime.timedelta(microseconds=1)
    favorite_made(listing, midnight_first - microsecond)
    favorite_made(listing, midnight_first)
    favorite_made(listing, midnight_after - microsecond)
    favorite_made(listing, midnight_after)
    visit_requested(listing, midnight_first - microsecond, AppointmentStatus.CONFIRMED)
    visit_requested(listing, midnight_first, AppointmentStatus.COMPLETED)
    visit_requested(listing, midnight_after - microsecond, AppointmentStatus.PENDING)
    visit_requested(listing, midnight_after, AppointmentStatus.CANCELLED)
    for day in (first - datetime.timedelta(days=1), first, today, today + datetime.timedelta(1)):
        PropertyDailyViews.objects.create(property=listing, day=day, views=1)

    [statistics] = property_statistics(property_ids=[listing.pk], today=today).values()

    assert (statistics.first_day, statistics.last_day) == (first, today)
    assert (statistics.views, statistics.favorites, statistics.visit_requests) == (2, 2, 2)
    assert statistics.visit_outcomes == {
        "PENDING": 1,
        "CONFIRMED": 0,
        "CANCELLED": 0,
        "COMPLETED": 1,
    }
    assert [day.day for day in statistics.days][::29] == [first, today]
    assert (statistics.days[0].favorites, statistics.days[-1].favorites) == (1, 1)
    assert (statistics.days[0].visit_requests, statistics.days[-1].visit_requests) == (1, 1)
    assert sum(day.favorites for day in statistics.days[1:-1]) == 0


def test_statistics_of_many_listings_are_three_queries(django_assert_num_queries):
    listings = [ListingFactory() for _ in range(4)]
    customer = UserFactory()
    for listing in listings:
        FavoriteFactory(property=listing, user=customer)
        AppointmentFactory(property=listing)

    with django_assert_num_queries(3):
        statistics = property_statistics(property_ids=[listing.pk for listing in listings])

    assert [statistics[listing.pk].favorites for listing in listings] == [1, 1, 1, 1]
    assert [statistics[listing.pk].visit_requests for listing in listings] == [1, 1, 1, 1]
