"""Deleting a property or a user removes exactly what hangs on it (interface, decisions D14).

Each test counts the rows of every table before and after the delete, so that a row
removed too many is caught as surely as a row left behind.
"""

import datetime

import pytest
from django.utils import timezone

from accounts.models import Admin, Customer, Owner, User
from appointments.models import Appointment, AppointmentStatus
from favorites.models import Favorite
from listings.models import Property, PropertyCategory, PropertyType, TypeSpecificRecord
from media_app.models import Image, Video
from notifications.models import Notification, WebhookEndpoint
from tests.factories import (
    AdminFactory,
    AppointmentFactory,
    CustomerFactory,
    FavoriteFactory,
    ImageFactory,
    NotificationFactory,
    OwnerFactory,
    PropertyFactory,
    TypeSpecificRecordFactory,
    UserFactory,
    VideoFactory,
    WebhookEndpointFactory,
)

COUNTED_MODELS = (
    User,
    Owner,
    Customer,
    Admin,
    PropertyCategory,
    Property,
    TypeSpecificRecord,
    Image,
    Video,
    Appointment,
    Favorite,
    Notification,
    WebhookEndpoint,
)
# The tables whose rows reference a property.
PROPERTY_CHILDREN = (TypeSpecificRecord, Image, Video, Appointment, Favorite, Notification)
# The tables whose rows reference a user directly.
USER_CHILDREN = (Appointment, Favorite, Notification, WebhookEndpoint)


def row_counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in COUNTED_MODELS}


def counts_less(before: dict[str, int], **removed: int) -> dict[str, int]:
    """The counts expected after removing the given number of rows from some tables."""
    unknown = set(removed) - set(before)
    assert not unknown, f"not counted: {unknown}"
    return {name: count - removed.get(name, 0) for name, count in before.items()}


def ids_on_property(property_id: str) -> dict[str, set[str]]:
    return {
        model.__name__: set(
            model.objects.filter(property_id=property_id).values_list("pk", flat=True)
        )
        for model in PROPERTY_CHILDREN
    }


def ids_of_user(user_id: str) -> dict[str, set[str]]:
    return {
        model.__name__: set(model.objects.filter(user_id=user_id).values_list("pk", flat=True))
        for model in USER_CHILDREN
    }


def visit_date(days_ahead: int) -> datetime.datetime:
    return timezone.now() + datetime.timedelta(days=days_ahead)


def furnish(listing: Property, customer: User, first_visit_day: int = 1) -> None:
    """Give a property a house record, two images, a video, two visits by the customer
    (a day apart), a favorite of the customer and of another user, and two notifications
    to the customer."""
    TypeSpecificRecordFactory(property=listing, kind=PropertyType.HOUSE)
    ImageFactory.create_batch(2, property=listing)
    VideoFactory(property=listing)
    AppointmentFactory(property=listing, user=customer, date=visit_date(first_visit_day))
    AppointmentFactory(property=listing, user=customer, date=visit_date(first_visit_day + 1))
    FavoriteFactory(property=listing, user=customer)
    FavoriteFactory(property=listing, user=UserFactory())
    NotificationFactory.create_batch(2, property=listing, user=customer)


@pytest.mark.django_db
def test_deleting_a_property_removes_what_hangs_on_it_and_nothing_else():
    # given two furnished properties of one owner
    customer = CustomerFactory().user
    doomed = PropertyFactory()
    kept = PropertyFactory(owner=doomed.owner, category=doomed.category)
    furnish(doomed, customer, first_visit_day=1)
    furnish(kept, customer, first_visit_day=10)
    before = row_counts()
    kept_children = ids_on_property(kept.pk)
    doomed_id = doomed.pk

    # when one of them is deleted
    doomed.delete()

    # then its record, media, visits, favorites and notifications are gone, and only those
    assert row_counts() == counts_less(
        before,
        Property=1,
        TypeSpecificRecord=1,
        Image=2,
        Video=1,
        Appointment=2,
        Favorite=2,
        Notification=2,
    )
    assert ids_on_property(doomed_id) == {model.__name__: set() for model in PROPERTY_CHILDREN}
    assert ids_on_property(kept.pk) == kept_children
    assert Owner.objects.filter(pk=kept.owner_id).exists()
    assert User.objects.filter(pk=customer.pk).exists()


@pytest.mark.django_db
def test_deleting_a_customer_removes_their_favorites_notifications_visits_and_role():
    # given two customers who each favorited two properties, were notified twice about one,
    # and asked to visit it, and a webhook endpoint of someone else
    doomed = CustomerFactory().user
    kept = CustomerFactory().user
    listing = PropertyFactory()
    other_listing = PropertyFactory(owner=listing.owner, category=listing.category)
    for days_ahead, customer in enumerate((doomed, kept), start=1):
        FavoriteFactory(property=listing, user=customer)
        FavoriteFactory(property=other_listing, user=customer)
        NotificationFactory.create_batch(2, property=listing, user=customer)
        AppointmentFactory(property=listing, user=customer, date=visit_date(days_ahead))
    WebhookEndpointFactory(user=listing.owner.user)
    before = row_counts()
    kept_children = ids_of_user(kept.pk)
    doomed_id = doomed.pk

    # when one customer is deleted
    doomed.delete()

    # then their user row, Customer record, favorites, notifications and visit are gone
    assert row_counts() == counts_less(
        before, User=1, Customer=1, Favorite=2, Notification=2, Appointment=1
    )
    assert ids_of_user(doomed_id) == {model.__name__: set() for model in USER_CHILDREN}
    assert not Customer.objects.filter(user_id=doomed_id).exists()
    # and the other customer's rows and the properties are untouched
    assert ids_of_user(kept.pk) == kept_children
    assert set(Property.objects.values_list("pk", flat=True)) == {listing.pk, other_listing.pk}


@pytest.mark.django_db
def test_deleting_an_owner_removes_their_properties_and_all_that_hangs_on_them():
    # given an owner with two furnished properties, who also favorited, was notified about
    # and registered a webhook for things, and another owner with one furnished property
    doomed_owner = OwnerFactory()
    kept_owner = OwnerFactory()
    customer = CustomerFactory().user
    owned = PropertyFactory.create_batch(2, owner=doomed_owner)
    kept_listing = PropertyFactory(owner=kept_owner)
    for days_ahead, listing in zip((1, 10, 20), (*owned, kept_listing), strict=True):
        furnish(listing, customer, first_visit_day=days_ahead)
    kept_children = ids_on_property(kept_listing.pk)
    FavoriteFactory(property=kept_listing, user=doomed_owner.user)
    NotificationFactory(property=kept_listing, user=doomed_owner.user)
    WebhookEndpointFactory(user=doomed_owner.user)
    before = row_counts()
    owned_ids = [listing.pk for listing in owned]

    # when the owner's user is deleted
    doomed_owner.user.delete()

    # then the Owner record goes, and with it both properties and everything on them,
    # along with the owner's own favorite, notification and webhook endpoint
    assert row_counts() == counts_less(
        before,
        User=1,
        Owner=1,
        Property=2,
        TypeSpecificRecord=2,
        Image=4,
        Video=2,
        Appointment=4,
        Favorite=4 + 1,
        Notification=4 + 1,
        WebhookEndpoint=1,
    )
    assert not Owner.objects.filter(pk=doomed_owner.pk).exists()
    assert not Property.objects.filter(pk__in=owned_ids).exists()
    assert not Appointment.objects.filter(owner_id=doomed_owner.pk).exists()
    for listing_id in owned_ids:
        assert ids_on_property(listing_id) == {model.__name__: set() for model in PROPERTY_CHILDREN}
    # and the other owner's property keeps all its rows but the deleted owner's own,
    # and the customer is untouched
    assert ids_on_property(kept_listing.pk) == kept_children
    assert Owner.objects.get(pk=kept_owner.pk).properties.get() == kept_listing
    assert User.objects.filter(pk=customer.pk).exists()


@pytest.mark.django_db
def test_deleting_the_admin_of_an_appointment_keeps_the_appointment_without_admin():
    # given a confirmed appointment that involves an administrator
    admin = AdminFactory()
    appointment = AppointmentFactory(admin=admin, status=AppointmentStatus.CONFIRMED)
    before = row_counts()

    # when the administrator's user is deleted
    admin.user.delete()

    # then the user and their Admin record are gone, and the appointment stays, admin NULL
    assert row_counts() == counts_less(before, User=1, Admin=1)
    stored = Appointment.objects.get(pk=appointment.pk)
    assert stored.admin_id is None
    assert (stored.status, stored.date, stored.user_id, stored.owner_id) == (
        AppointmentStatus.CONFIRMED,
        appointment.date,
        appointment.user_id,
        appointment.owner_id,
    )


@pytest.mark.django_db
def test_deleting_a_user_removes_their_webhook_endpoints():
    # given a user with two webhook endpoints and another user with one
    doomed = UserFactory()
    WebhookEndpointFactory.create_batch(2, user=doomed)
    kept_endpoint = WebhookEndpointFactory()
    before = row_counts()

    # when the first user is deleted
    doomed.delete()

    # then both of their endpoints are gone and the other user's endpoint remains
    assert row_counts() == counts_less(before, User=1, WebhookEndpoint=2)
    assert list(WebhookEndpoint.objects.values_list("pk", flat=True)) == [kept_endpoint.pk]
