"""Events (D12): each service records its event in the transaction of the change, with the
resource as the API shows it; a rolled-back change emits nothing; each event reaches the
webhooks of the users it concerns, and every admin's."""

import datetime

import pytest
from django.db import transaction
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts.models import Owner, User
from appointments.api.serializers import AppointmentSerializer
from appointments.models import AppointmentStatus
from appointments.services import (
    appointment_book,
    appointment_cancel,
    appointment_complete,
    appointment_confirm,
    appointment_reschedule,
)
from config.errors import InvalidTransition
from favorites.api.serializers import FavoriteSerializer
from favorites.services import favorite_add
from listings.api.serializers import PropertySerializer
from listings.models import Property, PropertyStatus, TransactionType
from listings.services import (
    property_change_status,
    property_create,
    property_delete,
    property_update,
    type_record_create,
)
from notifications.api.serializers import NotificationDetailSerializer
from notifications.models import Event, EventType, WebhookDelivery
from notifications.services import notification_send, webhook_register
from tests.factories import RECORD_VALUES, CategoryFactory, ImageFactory, ListingFactory
from tests.webhooks.support import api_representation

pytestmark = pytest.mark.django_db

HOOK_URL = "http://127.0.0.1:9/hook"


def listing_of(user: User, **fields) -> Property:
    return ListingFactory(owner=Owner.objects.get(user=user), **fields)


def events_of_type(event_type: str) -> list[Event]:
    return list(Event.objects.filter(type=event_type).order_by("occurred_at", "id"))


def delivered_types(endpoint) -> list[str]:
    return list(
        WebhookDelivery.objects.filter(endpoint=endpoint)
        .order_by("created_at", "id")
        .values_list("event__type", flat=True)
    )


def future(days: int = 2) -> datetime.datetime:
    return timezone.now() + datetime.timedelta(days=days)


# --- what each service records --------------------------------------------------------------


def test_creating_a_listing_records_property_created(owner):
    listing = property_create(
        by=owner,
        title="Loft",
        description="Bright.",
        price=100000,
        latitude=40.0,
        longitude=-3.0,
        transaction_type=TransactionType.SALE,
        municipality="Madrid",
        address="1 Calle Mayor",
        area=80,
        category=CategoryFactory(),
    )
    [event] = events_of_type(EventType.PROPERTY_CREATED)
    assert event.payload == api_representation(
        PropertySerializer, Property.objects.get(pk=listing.pk)
    )
    assert (event.listing_id, event.owner_user_id, event.participant_id) == (
        listing.id,
        owner.id,
        None,
    )


def test_an_update_that_changes_nothing_records_nothing(owner):
    listing = listing_of(owner, title="Loft")
    property_update(property=listing, by=owner, changes={"title": "Loft"})
    assert Event.objects.count() == 0


def test_an_update_and_a_status_move_record_both_in_order(owner):
    listing = listing_of(owner, status=PropertyStatus.AVAILABLE)
    property_update(
        property=listing, by=owner, changes={"title": "Sold loft"}, status=PropertyStatus.SOLD
    )
    assert list(Event.objects.order_by("occurred_at", "id").values_list("type", flat=True)) == [
        EventType.PROPERTY_UPDATED,
        EventType.PROPERTY_STATUS_CHANGED,
    ]
    [changed] = events_of_type(EventType.PROPERTY_STATUS_CHANGED)
    assert changed.payload["status"] == "SOLD"
    assert changed.payload["title"] == "Sold loft"


def test_deleting_a_listing_records_it_as_it_was(owner):
    listing = listing_of(owner)
    before = api_representation(PropertySerializer, Property.objects.get(pk=listing.pk))
    property_delete(property=listing, by=owner)
    [event] = events_of_type(EventType.PROPERTY_DELETED)
    assert event.payload == before
    assert event.listing_id == before["id"]


def test_adding_a_type_record_records_property_updated_with_the_type(owner):
    listing = listing_of(owner)
    type_record_create(property=listing, by=owner, kind="house", values=RECORD_VALUES["house"])
    [event] = events_of_type(EventType.PROPERTY_UPDATED)
    assert event.payload["type"] == "house"


def test_each_appointment_change_records_its_event(owner, customer):
    listing = listing_of(owner, status=PropertyStatus.AVAILABLE)
    visit = appointment_book(by=customer, property=listing, date=future(), duration=30)
    visit = appointment_confirm(appointment=visit, by=owner)
    visit = appointment_reschedule(appointment=visit, by=customer, date=future(3))
    visit = appointment_confirm(appointment=visit, by=owner)
    visit = appointment_complete(appointment=visit, by=owner)
    other = appointment_book(by=customer, property=listing, date=future(5), duration=30)
    appointment_cancel(appointment=other, by=customer)

    appointment_events = Event.objects.filter(type__startswith="appointment.").order_by(
        "occurred_at", "id"
    )
    assert [event.type for event in appointment_events] == [
        "appointment.created",
        "appointment.confirmed",
        "appointment.rescheduled",
        "appointment.confirmed",
        "appointment.completed",
        "appointment.created",
        "appointment.cancelled",
    ]
    for event in appointment_events:
        assert (event.listing_id, event.owner_user_id, event.participant_id) == (
            listing.id,
            owner.id,
            customer.id,
        )
    completed = appointment_events[4]
    visit.refresh_from_db()
    assert completed.payload == api_representation(AppointmentSerializer, visit)
    assert completed.payload["status"] == AppointmentStatus.COMPLETED


def test_a_visit_booked_with_another_offset_has_its_moments_in_utc(owner, customer):
    # given a visit booked for a moment given at +02:00
    listing = listing_of(owner, status=PropertyStatus.AVAILABLE)
    madrid_summer = datetime.timezone(datetime.timedelta(hours=2))
    moment = (future(4) + datetime.timedelta(hours=3)).astimezone(madrid_summer)
    visit = appointment_book(by=customer, property=listing, date=moment, duration=30)

    # then its event says the moment in UTC, as the API answers it
    [event] = events_of_type(EventType.APPOINTMENT_CREATED)
    visit.refresh_from_db()
    assert event.payload == api_representation(AppointmentSerializer, visit)
    assert event.payload["date"].endswith("Z")


def test_saving_a_favorite_records_favorite_created_for_the_listing_owner(owner, customer):
    listing = listing_of(owner, status=PropertyStatus.AVAILABLE)
    favorite = favorite_add(user=customer, property=listing, by=customer)
    [event] = events_of_type(EventType.FAVORITE_CREATED)
    assert event.payload["id"] == favorite.id
    assert event.payload["property"]["id"] == listing.id
    assert event.payload == api_representation(FavoriteSerializer, favorite)
    assert (event.owner_user_id, event.participant_id) == (owner.id, None)


def test_a_notification_records_notification_created_for_its_recipient_only(owner, customer):
    listing = listing_of(owner)
    notification = notification_send(user=customer, property=listing, title="Hi", message="Hello")
    [event] = events_of_type(EventType.NOTIFICATION_CREATED)
    assert event.payload["id"] == notification.id
    assert event.payload["user"] == {
        "id": customer.id,
        "name": customer.name,
        "email": customer.email,
    }
    assert event.payload == api_representation(NotificationDetailSerializer, notification)
    assert (event.owner_user_id, event.participant_id) == (None, customer.id)


def test_payload_photo_urls_are_absolute_on_the_site_url(owner, customer, settings):
    settings.SITE_URL = "https://estate.example.com"
    listing = listing_of(owner, status=PropertyStatus.AVAILABLE)
    image = ImageFactory(property=listing)
    favorite_add(user=customer, property=listing, by=customer)
    [event] = events_of_type(EventType.FAVORITE_CREATED)
    assert event.payload["property"]["images"] == [
        {"id": image.id, "url": f"https://estate.example.com{image.file.url}"}
    ]


# --- one transaction ------------------------------------------------------------------------


def test_a_rolled_back_change_emits_nothing(owner, admin):
    # given an admin's webhook for every event, and an owner's listing
    webhook_register(by=admin, url=HOOK_URL, events=["*"])
    listing = listing_of(owner, status=PropertyStatus.PENDING, title="Loft")

    # when an update's status move is refused after its fields changed
    with pytest.raises(InvalidTransition):
        property_update(
            property=listing, by=owner, changes={"title": "Changed"}, status=PropertyStatus.SOLD
        )

    # then no event, no delivery and no task was written, and the listing is unchanged
    assert Event.objects.count() == 0
    assert WebhookDelivery.objects.count() == 0
    assert DBTaskResult.objects.count() == 0
    listing.refresh_from_db()
    assert listing.title == "Loft"


def test_an_enclosing_rollback_takes_the_event_delivery_and_task_with_it(owner, admin):
    webhook_register(by=admin, url=HOOK_URL, events=["*"])
    listing = listing_of(owner)

    class Abort(Exception):
        pass

    with pytest.raises(Abort), transaction.atomic():
        property_update(property=listing, by=owner, changes={"title": "Changed"})
        assert (Event.objects.count(), WebhookDelivery.objects.count()) == (1, 1)
        assert DBTaskResult.objects.count() == 1
        raise Abort

    assert (Event.objects.count(), WebhookDelivery.objects.count()) == (0, 0)
    assert DBTaskResult.objects.count() == 0


def test_a_committed_change_has_its_delivery_and_task(owner, admin):
    endpoint = webhook_register(by=admin, url=HOOK_URL, events=["property.updated"])
    listing = listing_of(owner)
    property_update(property=listing, by=owner, changes={"title": "Changed"})
    [delivery] = WebhookDelivery.objects.filter(endpoint=endpoint)
    [task] = DBTaskResult.objects.all()
    assert task.task_path == "notifications.tasks.webhook_deliver"
    assert task.args_kwargs == {"args": [delivery.id], "kwargs": {}}


# --- who receives what (D7) -----------------------------------------------------------------


def test_owner_scoped_webhooks_receive_no_event_about_other_owners(
    owner, other_owner, customer, admin
):
    # given a webhook for every event of each owner and of an admin
    own_hook = webhook_register(by=owner, url=HOOK_URL, events=["*"])
    other_hook = webhook_register(by=other_owner, url=HOOK_URL, events=["*"])
    admin_hook = webhook_register(by=admin, url=HOOK_URL, events=["*"])

    # when the other owner's listing is created, changed, approved, saved and visited
    listing = property_create(
        by=other_owner,
        title="Their loft",
        description="Bright.",
        price=100000,
        latitude=40.0,
        longitude=-3.0,
        transaction_type=TransactionType.SALE,
        municipality="Madrid",
        address="2 Calle Mayor",
        area=80,
        category=CategoryFactory(),
    )
    property_update(property=listing, by=other_owner, changes={"title": "Their big loft"})
    property_change_status(property=listing, by=admin, status=PropertyStatus.AVAILABLE)
    favorite_add(user=customer, property=listing, by=customer)
    visit = appointment_book(by=customer, property=listing, date=future(), duration=30)
    appointment_confirm(appointment=visit, by=other_owner)

    # then the first owner's webhook received nothing
    assert delivered_types(own_hook) == []
    # the listing's owner got every event about it, and their own notifications (approved,
    # visit requested), each written before the event of the change that sent it
    assert delivered_types(other_hook) == [
        "property.created",
        "property.updated",
        "notification.created",
        "property.status_changed",
        "favorite.created",
        "notification.created",
        "appointment.created",
        "appointment.confirmed",
    ]
    # and the admin's got everything, the customer's notification (confirmed) included
    assert delivered_types(admin_hook) == [
        "property.created",
        "property.updated",
        "notification.created",
        "property.status_changed",
        "favorite.created",
        "notification.created",
        "appointment.created",
        "notification.created",
        "appointment.confirmed",
    ]


def test_an_owner_visiting_anothers_listing_receives_that_visits_events(owner, other_owner):
    # given the first owner's webhook for visits
    hook = webhook_register(by=owner, url=HOOK_URL, events=["appointment.created"])
    listing = listing_of(other_owner, status=PropertyStatus.AVAILABLE)

    # when they book a visit of the other owner's listing, as its customer
    appointment_book(by=owner, property=listing, date=future(), duration=30)

    # then their webhook gets the visit's event (they are its customer)
    assert delivered_types(hook) == ["appointment.created"]


def test_a_webhook_receives_only_the_events_it_subscribed_to(owner):
    hook = webhook_register(by=owner, url=HOOK_URL, events=["property.status_changed"])
    listing = listing_of(owner, status=PropertyStatus.AVAILABLE)
    property_update(property=listing, by=owner, changes={"title": "Renamed"})
    property_change_status(property=listing, by=owner, status=PropertyStatus.SOLD)
    assert delivered_types(hook) == ["property.status_changed"]


def test_an_inactive_webhook_receives_nothing(owner):
    hook = webhook_register(by=owner, url=HOOK_URL, events=["*"])
    hook.active = False
    hook.save()
    property_update(property=listing_of(owner), by=owner, changes={"title": "Renamed"})
    assert delivered_types(hook) == []
