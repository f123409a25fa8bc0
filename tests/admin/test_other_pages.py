"""Users, appointments, favorites, notifications and webhook endpoints in the back office."""

import pytest

from accounts.models import Customer, Owner, User, UserType
from appointments.models import AppointmentStatus
from favorites.models import Favorite
from notifications.models import AlertFrequency, Notification, NotificationStatus, SavedSearch
from tests.admin.support import messages_of
from tests.factories import (
    AppointmentFactory,
    FavoriteFactory,
    ListingFactory,
    NotificationFactory,
    OwnerFactory,
    SavedSearchFactory,
    UserFactory,
    WebhookEndpointFactory,
)

pytestmark = pytest.mark.django_db

USERS_URL = "/admin/accounts/user/"


def emails_on_page(client, query: str) -> list[str]:
    response = client.get(f"{USERS_URL}{query}")
    assert response.status_code == 200
    return sorted(user.email for user in response.context["cl"].result_list)


def test_users_are_filtered_by_type_and_searched(back_office):
    # Names fixed: a generated one could contain "carl" too.
    UserFactory(
        email="carl@example.com",
        name="Carl Customer",
        user_type=UserType.CUSTOMER,
        phone="+34611111111",
    )
    OwnerFactory(user__email="olivia@example.com", user__name="Olivia Owner")

    assert emails_on_page(back_office, "?user_type__exact=OWNER") == ["olivia@example.com"]
    assert emails_on_page(back_office, "?q=carl") == ["carl@example.com"]
    assert emails_on_page(back_office, "?q=611111111") == ["carl@example.com"]


def test_an_admin_adds_an_owner_with_its_owner_record(back_office):
    # when an OWNER is added from the back office
    response = back_office.post(
        f"{USERS_URL}add/",
        {
            "email": "New.Owner@Example.com",
            "password1": "a-long-enough-passphrase",
            "password2": "a-long-enough-passphrase",
            "user_type": "OWNER",
            "name": "New Owner",
            "phone": "",
        },
    )

    # then the user exists with its role record, like one made through the API
    assert response.status_code == 302
    user = User.objects.get(email="new.owner@example.com")
    assert (user.user_type, user.is_staff, user.is_superuser) == (UserType.OWNER, False, False)
    assert Owner.objects.filter(user=user).exists()
    assert user.check_password("a-long-enough-passphrase")


def test_changing_a_users_type_goes_through_the_service(back_office):
    # given a customer
    customer = UserFactory(email="cara@example.com", user_type=UserType.CUSTOMER, name="Cara")
    Customer.objects.create(user=customer)
    url = f"{USERS_URL}{customer.pk}/change/"

    # when an admin makes them an OWNER
    response = back_office.post(
        url,
        {
            "email": "cara@example.com",
            "name": "Cara",
            "phone": customer.phone,
            "user_type": "OWNER",
            "is_active": "on",
        },
    )

    # then the Owner record follows, and the staff flags still match the type
    assert response.status_code == 302
    customer.refresh_from_db()
    assert (customer.user_type, customer.is_staff) == (UserType.OWNER, False)
    assert Owner.objects.filter(user=customer).exists()


def test_a_user_deleted_from_the_back_office_takes_their_listings_along(back_office):
    # given an owner
    owner = OwnerFactory()
    ListingFactory(owner=owner)

    # when the user is deleted, confirmed
    response = back_office.post(f"{USERS_URL}{owner.user_id}/delete/", {"post": "yes"})

    # then (D14)
    assert response.status_code == 302
    assert not User.objects.filter(pk=owner.user_id).exists()
    assert not Owner.objects.exists()


def test_the_cancel_action_cancels_visits_through_the_service(back_office):
    # given a pending visit and a completed one
    pending = AppointmentFactory()
    completed = AppointmentFactory(status=AppointmentStatus.COMPLETED)

    # when both are cancelled
    response = back_office.post(
        "/admin/appointments/appointment/",
        {"action": "cancel", "_selected_action": [pending.pk, completed.pk], "index": "0"},
    )

    # then the pending one is cancelled (both parties notified); the final one is reported
    pending.refresh_from_db()
    completed.refresh_from_db()
    assert (pending.status, completed.status) == (
        AppointmentStatus.CANCELLED,
        AppointmentStatus.COMPLETED,
    )
    assert Notification.objects.filter(property=pending.property).count() == 2
    assert sorted(messages_of(response)) == sorted(
        [
            f"{completed}: An appointment cannot move from COMPLETED to CANCELLED. "
            "Allowed next statuses: none (it is final).",
            "Cancelled 1 visit.",
        ]
    )


def test_appointments_are_filtered_by_status(back_office):
    AppointmentFactory(status=AppointmentStatus.CONFIRMED, notes="confirmed one")
    AppointmentFactory()

    response = back_office.get("/admin/appointments/appointment/?status__exact=CONFIRMED")

    assert [row.notes for row in response.context["cl"].result_list] == ["confirmed one"]


def test_a_favorite_is_removed_from_the_back_office(back_office):
    favorite = FavoriteFactory()

    response = back_office.post(f"/admin/favorites/favorite/{favorite.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert not Favorite.objects.exists()


def test_notifications_are_filtered_by_status_and_read_flag(back_office):
    NotificationFactory(title="Read warning", status=NotificationStatus.WARNING, read=True)
    NotificationFactory(title="Unread warning", status=NotificationStatus.WARNING)
    NotificationFactory(title="Unread info")

    response = back_office.get(
        "/admin/notifications/notification/?status__exact=WARNING&read__exact=0"
    )

    assert [row.title for row in response.context["cl"].result_list] == ["Unread warning"]


def test_an_admin_sends_a_notification(back_office):
    # given a user and a listing
    listing = ListingFactory()
    user = UserFactory()

    # when a notification is added in the back office
    response = back_office.post(
        "/admin/notifications/notification/add/",
        {
            "user": user.pk,
            "property": listing.pk,
            "status": "INFO",
            "title": "Price check",
            "message": "Please confirm the price.",
        },
    )

    # then it is sent, unread
    assert response.status_code == 302
    assert list(Notification.objects.values_list("user_id", "title", "read")) == [
        (user.pk, "Price check", False)
    ]


def test_a_webhook_endpoints_secret_is_never_shown(back_office):
    endpoint = WebhookEndpointFactory()

    pages = [
        back_office.get("/admin/notifications/webhookendpoint/"),
        back_office.get(f"/admin/notifications/webhookendpoint/{endpoint.pk}/change/"),
    ]

    for page in pages:
        assert page.status_code == 200
        assert endpoint.secret not in page.content.decode()
        assert "secret" not in page.content.decode().lower()


def test_the_user_page_shows_no_password_material(back_office):
    # given a user with a password
    user = UserFactory()
    *_algorithm_and_parameters, salt, hashed = user.password.split("$")

    # when their page opens
    body = back_office.get(f"{USERS_URL}{user.pk}/change/").content.decode()

    # then neither the salt nor the hash shows, not even in part; a reset link does
    assert salt[:6] not in body
    assert hashed[:6] not in body
    assert f'<a href="{USERS_URL}{user.pk}/password/">Set a new password</a>' in body


def test_saved_searches_are_read_by_frequency_and_never_changed(back_office):
    SavedSearchFactory(name="Paused flats", frequency=AlertFrequency.PAUSED)
    saved_search = SavedSearchFactory(name="Instant houses", frequency=AlertFrequency.INSTANT)

    listed = back_office.get("/admin/notifications/savedsearch/?frequency__exact=INSTANT")
    detail = back_office.get(f"/admin/notifications/savedsearch/{saved_search.pk}/change/")
    deleted = back_office.post(
        f"/admin/notifications/savedsearch/{saved_search.pk}/delete/", {"post": "yes"}
    )

    assert [row.name for row in listed.context["cl"].result_list] == ["Instant houses"]
    assert detail.status_code == 200
    assert "Instant houses" in detail.content.decode()
    assert deleted.status_code == 403
    assert SavedSearch.objects.count() == 2
