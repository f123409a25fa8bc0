"""Attempting webhook deliveries, retrying them, and the safety net (decisions D12).

An attempt takes the delivery (moving its due time forward by a lease, and enqueueing a
follow-up task for when the lease ends, in one transaction), POSTs the signed event to the
checked address, and records the outcome: 2xx succeeded; 410 failed and the endpoint
disabled; anything else retried on the schedule (or after the receiver's Retry-After on 429
and 503), then failed and the registrant notified. A worker that dies mid-attempt leaves
the follow-up task behind, which attempts again once the lease has passed: delivery is at
least once, and every attempt carries the same webhook-id (the event's id).

Nothing here reads, keeps or logs a response body, and the secret is only used to sign.
"""

import dataclasses
import datetime
import email.utils
import json
import logging
import secrets
import ssl
import time
from collections.abc import Iterable
from typing import Protocol

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy
from rest_framework.fields import DateTimeField

from config.errors import Conflict
from listings.models import Property
from notifications.models import (
    DeliveryErrorKind,
    DeliveryStatus,
    Event,
    Notification,
    NotificationStatus,
    WebhookAttempt,
    WebhookDelivery,
)
from notifications.signing import signed_headers
from notifications.targets import (
    ResponseInvalid,
    TargetRefused,
    TargetUnresolved,
    target_check,
    target_post,
)

logger = logging.getLogger("notifications.webhooks")


class Enqueue(Protocol):
    """Queues attempts of deliveries, now or at `run_after`, in the caller's transaction:
    notifications.tasks.deliveries_enqueue. Passed in by the callers above this module (the
    tasks, the admin, the commands), since those tasks are what call this module."""

    def __call__(
        self, delivery_ids: Iterable[str], *, run_after: datetime.datetime | None = None
    ) -> None: ...


USER_AGENT = "Estate-Webhooks/1.0"
GONE = 410
# Statuses whose Retry-After header says when to come back (D12).
RETRY_AFTER_STATUSES = (429, 503)
_random = secrets.SystemRandom()


def delivery_body(event: Event) -> bytes:
    """The JSON body of every attempt of an event: `{id, type, timestamp, data}`."""
    body = {
        "id": event.id,
        "type": event.type,
        "timestamp": DateTimeField().to_representation(event.occurred_at),
        "data": event.payload,
    }
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()


@dataclasses.dataclass(frozen=True)
class AttemptOutcome:
    """What one attempt learned: a status code or an error kind, and how long it took."""

    duration_ms: int
    status_code: int | None = None
    error_kind: str | None = None
    retry_after: str | None = None

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def _post(delivery: WebhookDelivery) -> AttemptOutcome:
    """Check the target again (DNS may have changed), sign and POST; never raises."""
    endpoint, event = delivery.endpoint, delivery.event
    started = time.monotonic()

    def outcome(**values) -> AttemptOutcome:
        duration_ms = round((time.monotonic() - started) * 1000)
        return AttemptOutcome(duration_ms=duration_ms, **values)

    try:
        target = target_check(endpoint.url)
    except TargetUnresolved:
        return outcome(error_kind=DeliveryErrorKind.DNS_ERROR)
    except TargetRefused:
        return outcome(error_kind=DeliveryErrorKind.BLOCKED_TARGET)
    body = delivery_body(event)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        **signed_headers(
            secret=endpoint.secret, message_id=event.id, timestamp=int(time.time()), body=body
        ),
    }
    try:
        response = target_post(
            target=target, body=body, headers=headers, timeout=settings.WEBHOOKS_TIMEOUT_SECONDS
        )
    # TimeoutError and ssl.SSLError are kinds of OSError: they come first.
    except TimeoutError:
        return outcome(error_kind=DeliveryErrorKind.TIMEOUT)
    except ssl.SSLError:
        return outcome(error_kind=DeliveryErrorKind.TLS_ERROR)
    except (OSError, ResponseInvalid):
        return outcome(error_kind=DeliveryErrorKind.CONNECTION_ERROR)
    code = response.status_code
    if 200 <= code < 300:
        return outcome(status_code=code)
    kind = DeliveryErrorKind.REDIRECT if 300 <= code < 400 else DeliveryErrorKind.HTTP_ERROR
    return outcome(status_code=code, error_kind=kind, retry_after=response.retry_after)


def _retry_after_seconds(value: str | None, now: datetime.datetime) -> float | None:
    """Seconds a Retry-After header asks for (a number or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        seconds = float(value)
    else:
        try:
            moment = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=datetime.UTC)
        seconds = (moment - now).total_seconds()
    return min(max(seconds, 0.0), settings.WEBHOOKS_RETRY_AFTER_MAX_SECONDS)


def _retry_delay(*, attempts: int, outcome: AttemptOutcome, now: datetime.datetime) -> float:
    """Seconds until the next attempt: the receiver's Retry-After, else the schedule ±jitter."""
    if outcome.status_code in RETRY_AFTER_STATUSES:
        asked = _retry_after_seconds(outcome.retry_after, now)
        if asked is not None:
            return asked
    scheduled = settings.WEBHOOKS_RETRY_SCHEDULE[attempts - 1]
    jitter = settings.WEBHOOKS_RETRY_JITTER
    return scheduled * _random.uniform(1 - jitter, 1 + jitter)


def _take(delivery_id: str, now: datetime.datetime, enqueue: Enqueue) -> WebhookDelivery | None:
    """Take a pending, due delivery for one attempt; None when it is not (or no longer) so.

    Its due time moves forward by the lease, so no other worker takes it meanwhile, and a
    follow-up task is enqueued for when the lease ends, in the same transaction: if this
    worker dies mid-attempt, that task attempts again.
    """
    lease_ends = now + datetime.timedelta(seconds=settings.WEBHOOKS_ATTEMPT_LEASE_SECONDS)
    with transaction.atomic():
        taken = WebhookDelivery.objects.filter(
            pk=delivery_id, status=DeliveryStatus.PENDING, next_attempt_at__lte=now
        ).update(next_attempt_at=lease_ends, updated_at=now)
        if not taken:
            return None
        enqueue([delivery_id], run_after=lease_ends)
    return WebhookDelivery.objects.select_related("endpoint", "event").get(pk=delivery_id)


def _notify_registrant(delivery: WebhookDelivery) -> None:
    """Tell the registrant in the app that an event could not be delivered (D12).

    A notification is about a listing: the event's. When that listing is gone
    (property.deleted), the failure is only logged. This notification is not itself sent
    as a notification.created webhook: a failing endpoint would otherwise feed itself.
    """
    event, endpoint = delivery.event, delivery.endpoint
    listing = Property.objects.filter(pk=event.listing_id).first() if event.listing_id else None
    if listing is None:
        logger.warning(
            "webhook delivery %s failed for good; its listing is gone, nobody was notified",
            delivery.id,
        )
        return
    Notification.objects.create(
        user=endpoint.user,
        property=listing,
        status=NotificationStatus.ERROR,
        title="Webhook delivery failed",
        message=(
            f"The {event.type} event {event.id} could not be delivered to {endpoint.url} "
            f"after {delivery.attempts} attempts and was given up."
        ),
    )


def _settle(
    delivery: WebhookDelivery, outcome: AttemptOutcome, now: datetime.datetime, enqueue: Enqueue
) -> None:
    """Apply an attempt's outcome to a pending delivery (locked by the caller)."""
    schedule_length = len(settings.WEBHOOKS_RETRY_SCHEDULE)
    if outcome.succeeded:
        delivery.status, delivery.next_attempt_at = DeliveryStatus.SUCCEEDED, None
    elif outcome.status_code == GONE:
        # The receiver says the endpoint is gone for good: stop sending it anything.
        delivery.status, delivery.next_attempt_at = DeliveryStatus.FAILED, None
        delivery.endpoint.active = False
        delivery.endpoint.save(update_fields=["active", "updated_at"])
    elif delivery.attempts > schedule_length:
        delivery.status, delivery.next_attempt_at = DeliveryStatus.FAILED, None
        # Only the end of the automatic schedule notifies; a manual retry that fails again
        # does not tell the registrant a second time.
        if delivery.attempts == schedule_length + 1:
            _notify_registrant(delivery)
    else:
        delay = _retry_delay(attempts=delivery.attempts, outcome=outcome, now=now)
        delivery.next_attempt_at = now + datetime.timedelta(seconds=delay)
        enqueue([delivery.id], run_after=delivery.next_attempt_at)


def _record(
    delivery_id: str, outcome: AttemptOutcome, attempted_at: datetime.datetime, enqueue: Enqueue
) -> str:
    """Log the attempt and settle the delivery, in one transaction; returns its status.

    "deleted" when the delivery went with its webhook while the attempt was under way.
    """
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update(of=("self",))
            .select_related("endpoint__user", "event")
            .filter(pk=delivery_id)
            .first()
        )
        if delivery is None:
            # The webhook was deleted (and its deliveries with it) during the attempt.
            return "deleted"
        WebhookAttempt.objects.create(
            delivery=delivery,
            attempted_at=attempted_at,
            status_code=outcome.status_code,
            duration_ms=outcome.duration_ms,
            error_kind=outcome.error_kind,
        )
        delivery.attempts += 1
        delivery.last_status_code = outcome.status_code
        delivery.last_error = outcome.error_kind
        # A delivery already settled (by an attempt made after this one's lease ran out)
        # keeps its status: only the log grows.
        if delivery.status == DeliveryStatus.PENDING:
            _settle(delivery, outcome, timezone.now(), enqueue)
        delivery.save()
    return delivery.status


def delivery_attempt(*, delivery_id: str, enqueue: Enqueue) -> str:
    """Make one attempt of a delivery if it is pending and due; returns what became of it.

    "skipped" when the delivery is not pending or not due (another task or worker has it,
    or it was settled), else its status after the attempt.
    """
    attempted_at = timezone.now()
    delivery = _take(delivery_id, attempted_at, enqueue)
    if delivery is None:
        return "skipped"
    if not delivery.endpoint.active:
        # Paused by an admin or disabled by a 410: the delivery ends without an attempt.
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            status=DeliveryStatus.FAILED,
            next_attempt_at=None,
            last_error=DeliveryErrorKind.ENDPOINT_DISABLED,
            updated_at=timezone.now(),
        )
        return DeliveryStatus.FAILED
    outcome = _post(delivery)
    status = _record(delivery.id, outcome, attempted_at, enqueue)
    logger.info(
        "webhook delivery %s of event %s: attempt %s, status code %s, error %s, %s ms: %s",
        delivery.id,
        delivery.event_id,
        delivery.attempts + 1,
        outcome.status_code,
        outcome.error_kind,
        outcome.duration_ms,
        status,
    )
    return status


def delivery_retry_now(*, delivery: WebhookDelivery, enqueue: Enqueue | None) -> WebhookDelivery:
    """Make a pending or failed delivery due now (admins' "retry now"), and enqueue it.

    A succeeded delivery is a conflict: it reached its receiver. `enqueue=None` leaves the
    attempt to the caller (the management command attempts at once, in its own process).
    """
    now = timezone.now()
    with transaction.atomic():
        retried = (
            WebhookDelivery.objects.filter(pk=delivery.pk)
            .exclude(status=DeliveryStatus.SUCCEEDED)
            .update(status=DeliveryStatus.PENDING, next_attempt_at=now, updated_at=now)
        )
        if not retried:
            raise Conflict(gettext_lazy("This delivery succeeded; there is nothing to retry."))
        if enqueue is not None:
            enqueue([delivery.pk])
    delivery.refresh_from_db()
    return delivery


# How many deliveries one sweep enqueues at most; the next sweep takes the rest.
SWEEP_BATCH = 500


def deliveries_sweep(*, enqueue: Enqueue, overdue_seconds: float | None = None) -> int:
    """The safety net: enqueue again pending deliveries overdue by `overdue_seconds`.

    A delivery is overdue when no task attempted it by its due time: its task was lost
    (enqueued on a backend outside the database transaction when the process died, or a
    backend that cannot defer retries). Their due time becomes now, so the next sweep
    leaves them alone for another interval. Returns how many were enqueued. Defaults to the
    sweep interval; the worker's start sweep (`manage.py webhooks_sweep`) passes 0.
    """
    if overdue_seconds is None:
        overdue_seconds = settings.WEBHOOKS_SWEEP_INTERVAL_SECONDS
    now = timezone.now()
    cutoff = now - datetime.timedelta(seconds=overdue_seconds)
    with transaction.atomic():
        overdue = WebhookDelivery.objects.filter(
            status=DeliveryStatus.PENDING, next_attempt_at__lte=cutoff
        ).order_by("next_attempt_at", "id")
        if connection.features.has_select_for_update_skip_locked:
            # A delivery a worker is taking right now is skipped, not waited for.
            overdue = overdue.select_for_update(skip_locked=True)
        delivery_ids = list(overdue.values_list("id", flat=True)[:SWEEP_BATCH])
        if delivery_ids:
            WebhookDelivery.objects.filter(pk__in=delivery_ids).update(
                next_attempt_at=now, updated_at=now
            )
            enqueue(delivery_ids)
    if delivery_ids:
        logger.info("webhook sweep enqueued %s overdue deliveries", len(delivery_ids))
    return len(delivery_ids)


# When this process last swept (time.monotonic()); each worker process sweeps on its own.
_sweep_clock: dict[str, float] = {}


def deliveries_sweep_now_and_then(*, enqueue: Enqueue) -> bool:
    """Sweep if this process has not swept for a sweep interval (called after deliveries);
    returns whether it swept."""
    moment = time.monotonic()
    last = _sweep_clock.get("last")
    if last is not None and moment - last < settings.WEBHOOKS_SWEEP_INTERVAL_SECONDS:
        return False
    _sweep_clock["last"] = moment
    deliveries_sweep(enqueue=enqueue)
    return True
