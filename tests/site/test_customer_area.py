"""The customer area: favorites, my visits (cancel, reschedule), notifications."""

import datetime

import pytest
from django.utils import timezone

from appointments.models import AppointmentStatus
from listings.models import PropertyStatus
from notifications.models import Notification
from tests.factories import AppointmentFactory, FavoriteFactory, NotificationFactory
from tests.site.conftest import house

pytestmark = pytest.mark.django_db


def in_days(days: int) -> datetime.datetime:
    return (timezone.now() + datetime.timedelta(days=days)).replace(second=0, microsecond=0)


def test_favorites_page_lists_mine_newest_first_without_others_or_hidden_ones(
    customer_session, customer, other_owner, django_assert_num_queries
):
    # given my two favorites, one of a listing that became hidden, and someone else's
    older = FavoriteFactory(user=customer, property=house(title="Older pick"))
    FavoriteFactory(user=customer, property=house(title="Newer pick"))
    FavoriteFactory(
        user=customer, property=house(title="Now hidden", status=PropertyStatus.PENDING)
    )
    FavoriteFactory(property=house(title="Not mine"))
    assert older.pk

    # when: session, user, favorites with their listings, their photos, unread count
    with django_assert_num_queries(5):
        response = customer_session.get("/en/me/favorites/")

    # then
    page = response.text
    assert page.index("Newer pick") < page.index("Older pick")
    assert "Now hidden" not in page
    assert "Not mine" not in page


def test_my_visits_offer_cancel_and_reschedule_by_the_state_machine(customer_session, customer):
    pending = AppointmentFactory(user=customer, property=house(title="Pending visit"))
    done = AppointmentFactory(
        user=customer, property=house(title="Done visit"), status=AppointmentStatus.COMPLETED
    )

    response = customer_session.get("/en/me/visits/")

    page = response.text
    assert f'action="/en/visits/{pending.pk}/cancel/"' in page
    assert f'href="/en/visits/{pending.pk}/reschedule/?next=/en/me/visits/"' in page
    # the customer may not confirm, and a completed visit is final
    assert f"/en/visits/{pending.pk}/confirm/" not in page
    assert f"/en/visits/{done.pk}/" not in page


def test_customer_cancels_a_visit_and_the_owner_is_notified(customer_session, customer):
    visit = AppointmentFactory(user=customer, property=house(title="Changed my mind"))

    response = customer_session.post(f"/en/visits/{visit.pk}/cancel/", {"next": "/en/me/visits/"})

    visit.refresh_from_db()
    assert response.status_code == 302
    assert response.url == "/en/me/visits/"
    assert visit.status == AppointmentStatus.CANCELLED
    notice = Notification.objects.get(user=visit.owner.user)
    assert notice.title == "Visit cancelled"


def test_customer_may_not_confirm_their_own_request(customer_session, customer):
    visit = AppointmentFactory(user=customer, property=house())

    response = customer_session.post(f"/en/visits/{visit.pk}/confirm/", follow=True)

    visit.refresh_from_db()
    assert visit.status == AppointmentStatus.PENDING
    assert "Only the owner may move this visit to CONFIRMED." in response.text


def test_someone_elses_visit_is_404(customer_session):
    visit = AppointmentFactory(property=house())

    response = customer_session.post(f"/en/visits/{visit.pk}/cancel/")

    assert response.status_code == 404


def test_reschedule_moves_the_visit_back_to_pending(customer_session, customer):
    visit = AppointmentFactory(
        user=customer, property=house(), status=AppointmentStatus.CONFIRMED, date=in_days(3)
    )
    new_date = in_days(5)

    form = customer_session.get(f"/en/visits/{visit.pk}/reschedule/?next=/en/me/visits/")
    response = customer_session.post(
        f"/en/visits/{visit.pk}/reschedule/",
        {"date": new_date.strftime("%Y-%m-%dT%H:%M"), "duration": "60", "next": "/en/me/visits/"},
    )

    visit.refresh_from_db()
    assert form.status_code == 200
    assert response.status_code == 302
    assert (visit.date, visit.duration, visit.status) == (
        new_date,
        60,
        AppointmentStatus.PENDING,
    )


def test_reschedule_refused_by_the_service_shows_its_message(customer_session, customer):
    visit = AppointmentFactory(user=customer, property=house())

    response = customer_session.post(
        f"/en/visits/{visit.pk}/reschedule/", {"date": "2001-01-01T10:00", "duration": "30"}
    )

    assert response.status_code == 400
    assert "A visit must be in the future." in response.text


def test_header_shows_the_unread_count_and_notifications_can_be_marked_read(
    customer_session, customer
):
    first = NotificationFactory(user=customer, title="First news")
    NotificationFactory(user=customer, title="Second news")
    NotificationFactory(user=customer, title="Old news", read=True)
    NotificationFactory(title="For someone else")

    before = customer_session.get("/en/")
    customer_session.post(f"/en/me/notifications/{first.pk}/read/")
    after_one = customer_session.get("/en/me/notifications/")
    customer_session.post("/en/me/notifications/read-all/")
    after_all = customer_session.get("/en/")

    assert '2<span class="visually-hidden"> unread</span>' in before.text
    assert '1<span class="visually-hidden"> unread</span>' in after_one.text
    assert "For someone else" not in after_one.text
    assert "unread</span>" not in after_all.text
    assert Notification.objects.filter(user=customer, read=False).count() == 0


def test_someone_elses_notification_cannot_be_marked(customer_session):
    notification = NotificationFactory(title="Private")

    response = customer_session.post(f"/en/me/notifications/{notification.pk}/read/")

    notification.refresh_from_db()
    assert response.status_code == 404
    assert notification.read is False
