"""Recording events (decisions D12): the outbox every service writes to.

A service that changes something calls `event_record` (or `events_record` for many) inside
its own transaction. In that transaction the event row, one delivery row per matching
active webhook endpoint and one background task per delivery are written, so a rolled-back
change emits nothing and a committed one is delivered even if a process dies right after.
Services call these functions directly; there are no signals.
"""

import dataclasses

from django.db.models import Q
from django.utils import timezone

from accounts.models import UserType
from notifications.models import (
    ALL_EVENTS,
    DeliveryStatus,
    Event,
    EventType,
    WebhookDelivery,
    WebhookEndpoint,
)
from notifications.tasks import deliveries_enqueue


@dataclasses.dataclass(frozen=True)
class NewEvent:
    """An event to record: its type, its payload and whom it concerns (see Event)."""

    type: str
    payload: dict
    listing_id: str = ""
    owner_user_id: str | None = None
    participant_id: str | None = None


def _subscribes(endpoint: WebhookEndpoint, event_type: str) -> bool:
    """True when the endpoint asked for this event type, or for all of them ("*")."""
    return ALL_EVENTS in endpoint.events or event_type in endpoint.events


def _may_receive(endpoint: WebhookEndpoint, event: Event) -> bool:
    """Admins' endpoints receive every event; others only events about their user (D7)."""
    return endpoint.user.user_type == UserType.ADMIN or endpoint.user_id in event.audience()


def _fan_out(events: list[Event]) -> list[WebhookDelivery]:
    """One pending delivery per (event, active endpoint that subscribes and may receive it)."""
    audience = set().union(*(event.audience() for event in events))
    endpoints = list(
        WebhookEndpoint.objects.filter(active=True)
        .filter(Q(user__user_type=UserType.ADMIN) | Q(user_id__in=audience))
        .select_related("user")
    )
    now = timezone.now()
    return [
        WebhookDelivery(
            endpoint=endpoint, event=event, status=DeliveryStatus.PENDING, next_attempt_at=now
        )
        for event in events
        for endpoint in endpoints
        if _subscribes(endpoint, event.type) and _may_receive(endpoint, event)
    ]


def events_record(new_events: list[NewEvent]) -> list[Event]:
    """Record several events with one insert, and their deliveries with another.

    Must run inside the transaction of the change that caused them (every caller is a
    transactional service).
    """
    if not new_events:
        return []
    for new_event in new_events:
        if new_event.type not in EventType.values:
            raise ValueError(f"Not an event type: {new_event.type}")
    now = timezone.now()
    events = Event.objects.bulk_create(
        [
            Event(
                type=new_event.type,
                payload=new_event.payload,
                occurred_at=now,
                listing_id=new_event.listing_id,
                owner_user_id=new_event.owner_user_id,
                participant_id=new_event.participant_id,
            )
            for new_event in new_events
        ]
    )
    deliveries = WebhookDelivery.objects.bulk_create(_fan_out(events))
    deliveries_enqueue(delivery.id for delivery in deliveries)
    return events


def event_record(
    *,
    type: str,
    payload: dict,
    listing_id: str = "",
    owner_user_id: str | None = None,
    participant_id: str | None = None,
) -> Event:
    """Record one event and its deliveries in the caller's transaction (see events_record)."""
    [event] = events_record(
        [
            NewEvent(
                type=type,
                payload=payload,
                listing_id=listing_id,
                owner_user_id=owner_user_id,
                participant_id=participant_id,
            )
        ]
    )
    return event
