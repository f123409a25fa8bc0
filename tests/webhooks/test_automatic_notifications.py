"""The in-app notifications the platform sends itself (D12, last point), one test each.

Appointment and moderation notices are also covered in tests/appointments and tests/admin;
here each is checked through its service with its recipient, title and notification.created
event, and the favorites' notices (price drop, sold, rented) are checked in full.
"""

import datetime
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import Owner, User, UserType
from appointments.services import (
    appointment_book,
    appointment_cancel,
    appointment_confirm,
    appointment_reschedule,
)
from config.errors import InvalidTransition
from favorites.services import favorite_add
from listings.models import Property, PropertyStatus, TransactionType
from listings.services import property_change_status, property_update
from notifications.models import Event, EventType, Notification, NotificationStatus
from tests.factories import ListingFactory
from tests.support import make_user

pytestmark = pytest.mark.django_db


def listing_of(user: User, **fields) -> Property:
    defaults = {"status": PropertyStatus.AVAILABLE, "title": "Loft", "price": Decimal("250000")}
    return ListingFactory(owner=Owner.objects.get(user=user), **{**defaults, **fields})


def notices() -> list[tuple[str, str, str]]:
    """Every notification as (recipient email, title, listing id), oldest first."""
    return list(
        Notification.objects.order_by("created_at", "id").values_list(
            "user__email", "title", "property_id"
        )
    )


def assert_each_notice_has_its_event() -> None:
    """Every notification has one notification.created event, for its recipient."""
    events = Event.objects.filter(type=EventType.NOTIFICATION_CREATED)
    assert sorted((event.payload["id"], event.participant_id) for event in events) == sorted(
        Notification.objects.values_list("id", "user_id")
    )


def future(days: int = 2) -> datetime.datetime:
    return timezone.now() + datetime.timedelta(days=days)


@pytest.fixture
def savers(db) -> list[User]:
    """Two customers who will save the listing."""
    return [
        make_user(UserType.CUSTOMER, email="sam.saver@example.com", name="Sam Saver"),
        make_user(UserType.CUSTOMER, email="sara.saver@example.com", name="Sara Saver"),
    ]


def save(listing: Property, users: list[User]) -> None:
    for user in users:
        favorite_add(user=user, property=listing, by=user)


# --- visits ---------------------------------------------------------------------------------


def test_a_visit_request_notifies_the_owner(owner, customer):
    listing = listing_of(owner)
    appointment_book(by=customer, property=listing, date=future(), duration=30)
    assert notices() == [(owner.email, "New visit request", listing.id)]
    assert_each_notice_has_its_event()


def test_a_confirmed_visit_notifies_the_customer(owner, customer):
    listing = listing_of(owner)
    visit = appointment_book(by=customer, property=listing, date=future(), duration=30)
    appointment_confirm(appointment=visit, by=owner)
    assert notices()[1:] == [(customer.email, "Visit confirmed", listing.id)]
    assert_each_notice_has_its_event()


@pytest.mark.parametrize("by", ["customer", "owner"])
def test_a_cancelled_visit_notifies_the_other_party(owner, customer, by):
    listing = listing_of(owner)
    visit = appointment_book(by=customer, property=listing, date=future(), duration=30)
    actor, told = (customer, owner) if by == "customer" else (owner, customer)
    appointment_cancel(appointment=visit, by=actor)
    assert notices()[1:] == [(told.email, "Visit cancelled", listing.id)]
    assert_each_notice_has_its_event()


def test_a_rescheduled_visit_notifies_the_other_party(owner, customer):
    listing = listing_of(owner)
    visit = appointment_book(by=customer, property=listing, date=future(), duration=30)
    appointment_reschedule(appointment=visit, by=owner, date=future(3))
    assert notices()[1:] == [(customer.email, "Visit rescheduled", listing.id)]
    assert_each_notice_has_its_event()


# --- moderation -----------------------------------------------------------------------------


def test_an_approved_listing_notifies_its_owner(owner, admin):
    listing = listing_of(owner, status=PropertyStatus.PENDING)
    property_change_status(property=listing, by=admin, status=PropertyStatus.AVAILABLE)
    assert notices() == [(owner.email, "Listing approved", listing.id)]
    assert Notification.objects.get().status == NotificationStatus.SUCCESS
    assert_each_notice_has_its_event()


def test_a_suspended_listing_notifies_its_owner(owner, admin):
    listing = listing_of(owner)
    property_change_status(
        property=listing, by=admin, status=PropertyStatus.SUSPENDED, reason="Fake photos"
    )
    assert notices() == [(owner.email, "Listing suspended", listing.id)]
    notice = Notification.objects.get()
    assert notice.status == NotificationStatus.WARNING
    assert notice.message.endswith("Reason: Fake photos")
    assert_each_notice_has_its_event()


# --- favorites: price drop, sold, rented ----------------------------------------------------


def test_a_price_drop_notifies_everyone_who_saved_the_listing_with_one_insert(owner, savers):
    # given a listing two customers saved
    listing = listing_of(owner)
    save(listing, savers)

    # when its owner lowers the price
    with CaptureQueriesContext(connection) as queries:
        property_update(property=listing, by=owner, changes={"price": Decimal("240000")})

    # then both are told, with one insert of notifications
    assert sorted(notices()) == sorted(
        [(saver.email, "Price drop", listing.id) for saver in savers]
    )
    assert Notification.objects.first().message == (
        "“Loft”, which you saved, now costs €240,000 instead of €250,000."
    )
    assert {notice.status for notice in Notification.objects.all()} == {NotificationStatus.INFO}
    notification_inserts = [
        query["sql"]
        for query in queries.captured_queries
        if query["sql"].lstrip().upper().startswith("INSERT")
        and "notifications_notification" in query["sql"]
    ]
    assert len(notification_inserts) == 1
    assert_each_notice_has_its_event()


def test_a_price_rise_or_other_change_notifies_nobody(owner, savers):
    listing = listing_of(owner)
    save(listing, savers)
    property_update(property=listing, by=owner, changes={"price": Decimal("260000")})
    property_update(property=listing, by=owner, changes={"title": "Loft with a view"})
    assert notices() == []


def test_a_price_drop_of_a_hidden_listing_notifies_nobody(owner, savers):
    # given a saved listing that is back in moderation (its savers cannot see it)
    listing = listing_of(owner)
    save(listing, savers)
    Property.objects.filter(pk=listing.pk).update(status=PropertyStatus.PENDING)

    property_update(property=listing, by=owner, changes={"price": Decimal("200000")})

    assert notices() == []


def test_the_one_who_lowers_the_price_is_not_told(owner, savers):
    # given a listing its own owner saved too
    listing = listing_of(owner)
    save(listing, [*savers, owner])

    property_update(property=listing, by=owner, changes={"price": Decimal("1000")})

    assert owner.email not in [email for email, _title, _listing in notices()]
    assert len(notices()) == 2


def test_a_sold_listing_notifies_everyone_who_saved_it(owner, savers):
    listing = listing_of(owner, transaction_type=TransactionType.SALE)
    save(listing, savers)
    property_change_status(property=listing, by=owner, status=PropertyStatus.SOLD)
    assert sorted(notices()) == sorted(
        [(saver.email, "Listing sold", listing.id) for saver in savers]
    )
    assert Notification.objects.first().message == "“Loft”, which you saved, was sold."
    assert_each_notice_has_its_event()


def test_a_rented_listing_notifies_everyone_who_saved_it(owner, savers):
    listing = listing_of(owner, transaction_type=TransactionType.RENT)
    save(listing, savers)
    property_change_status(property=listing, by=owner, status=PropertyStatus.RENTED)
    assert sorted(notices()) == sorted(
        [(saver.email, "Listing rented", listing.id) for saver in savers]
    )
    assert Notification.objects.first().message == "“Loft”, which you saved, was rented."
    assert_each_notice_has_its_event()


def test_a_sold_listing_nobody_saved_notifies_nobody(owner):
    listing = listing_of(owner, transaction_type=TransactionType.SALE)
    property_change_status(property=listing, by=owner, status=PropertyStatus.SOLD)
    assert notices() == []


def test_the_favorites_notices_roll_back_with_the_change(owner, savers):
    # given a saved, available listing for sale
    listing = listing_of(owner, transaction_type=TransactionType.SALE)
    save(listing, savers)

    # when a PATCH lowers the price but asks for a move the state machine refuses
    with pytest.raises(InvalidTransition):
        property_update(
            property=listing,
            by=owner,
            changes={"price": Decimal("1000")},
            status=PropertyStatus.RENTED,
        )

    # then nobody was told
    assert notices() == []
