"""Delivery rules of D12 against a real receiver: retries, 410, redirects, Retry-After,
timeouts, giving up, the address actually connected to, and a worker dying mid-attempt."""

import datetime
import email.utils
import socket

import pytest
from django.core.management import call_command
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts.models import Owner, User
from bench.servers import free_port
from listings.models import Property
from listings.services import property_update
from notifications import delivery as delivery_module
from notifications.delivery import deliveries_sweep, delivery_retry_now
from notifications.models import (
    DeliveryErrorKind,
    DeliveryStatus,
    Event,
    Notification,
    NotificationStatus,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
)
from notifications.services import webhook_register
from notifications.tasks import deliveries_enqueue
from tests.factories import ListingFactory
from tests.webhooks.support import RECEIVER_BODY, SECRET, run_ready_tasks

pytestmark = pytest.mark.django_db


def listing_of(user: User) -> Property:
    return ListingFactory(owner=Owner.objects.get(user=user), title="Loft")


def one_delivery(user: User, url: str) -> WebhookDelivery:
    """The user's webhook at `url`, and one pending delivery to it (a property.updated)."""
    endpoint = webhook_register(by=user, url=url, events=["*"], secret=SECRET)
    property_update(property=listing_of(user), by=user, changes={"title": "Loft, renamed"})
    return WebhookDelivery.objects.get(endpoint=endpoint)


def attempt_log(delivery: WebhookDelivery) -> list[tuple[int | None, str | None]]:
    return list(
        WebhookAttempt.objects.filter(delivery=delivery)
        .order_by("attempted_at", "id")
        .values_list("status_code", "error_kind")
    )


def test_500_twice_then_200_is_three_attempts_with_one_webhook_id(owner, receiver):
    # given a receiver that fails twice, then accepts
    receiver.answer((500, {}), (500, {}), (200, {}))
    delivery = one_delivery(owner, receiver.url())

    # when the worker runs (the retries are due at once in the tests' schedule)
    run_ready_tasks()

    # then three attempts reached it, all with the event's id as webhook-id
    requests = receiver.received()
    assert len(requests) == 3
    assert {request.headers["webhook-id"] for request in requests} == {delivery.event_id}
    assert {request.body for request in requests} == {requests[0].body}
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == (
        DeliveryStatus.SUCCEEDED,
        3,
        200,
    )
    assert delivery.next_attempt_at is None
    assert attempt_log(delivery) == [
        (500, DeliveryErrorKind.HTTP_ERROR),
        (500, DeliveryErrorKind.HTTP_ERROR),
        (200, None),
    ]


def test_a_retry_waits_its_scheduled_time_with_jitter(owner, receiver, settings):
    # given the schedule's first wait, 5 s, give or take 10%
    settings.WEBHOOKS_RETRY_SCHEDULE = [5.0, 300.0]
    settings.WEBHOOKS_RETRY_JITTER = 0.1
    receiver.answer((500, {}))
    delivery = one_delivery(owner, receiver.url())
    before = timezone.now()

    # when the first attempt fails
    run_ready_tasks()

    # then the next one is due in 4.5 to 5.5 s, and its task waits until then
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.PENDING
    wait = (delivery.next_attempt_at - before).total_seconds()
    assert 4.5 <= wait <= 5.6
    assert len(receiver.received()) == 1
    assert DBTaskResult.objects.ready().count() == 0
    assert DBTaskResult.objects.filter(run_after=delivery.next_attempt_at).count() == 1


def test_410_fails_the_delivery_and_disables_the_endpoint(owner, receiver):
    # given a receiver that answers 410 Gone
    receiver.answer((410, {}))
    delivery = one_delivery(owner, receiver.url())

    # when the worker runs
    run_ready_tasks()

    # then one attempt, the delivery failed, the endpoint is disabled
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == (
        DeliveryStatus.FAILED,
        1,
        410,
    )
    assert WebhookEndpoint.objects.get(pk=delivery.endpoint_id).active is False
    assert len(receiver.received()) == 1

    # and the next change makes no delivery to it
    property_update(
        property=Property.objects.get(pk=delivery.event.listing_id),
        by=owner,
        changes={"title": "Again"},
    )
    assert WebhookDelivery.objects.count() == 1


def test_a_302_is_not_followed(owner, receiver):
    # given a receiver that redirects to another path of its own
    receiver.answer((302, {"Location": receiver.url("/elsewhere")}))
    delivery = one_delivery(owner, receiver.url())

    # when the first attempt is made (its retry is answered 200)
    run_ready_tasks()

    # then the redirect target got nothing; the 302 counted as a failed attempt
    assert receiver.received("/elsewhere") == []
    assert attempt_log(delivery)[0] == (302, DeliveryErrorKind.REDIRECT)
    assert len(receiver.received()) == 2


@pytest.mark.parametrize("status_code", [429, 503])
def test_retry_after_in_seconds_is_honoured(owner, receiver, settings, status_code):
    # given a schedule of 5 s and a receiver asking for two minutes
    settings.WEBHOOKS_RETRY_SCHEDULE = [5.0]
    receiver.answer((status_code, {"Retry-After": "120"}))
    delivery = one_delivery(owner, receiver.url())
    before = timezone.now()

    # when the attempt is made
    run_ready_tasks()

    # then the next attempt is due in two minutes
    delivery.refresh_from_db()
    wait = (delivery.next_attempt_at - before).total_seconds()
    assert 120 <= wait <= 121


def test_retry_after_as_an_http_date_is_honoured(owner, receiver, settings):
    # given a receiver asking to come back at a date one hour ahead
    settings.WEBHOOKS_RETRY_SCHEDULE = [5.0]
    later = timezone.now() + datetime.timedelta(hours=1)
    receiver.answer((503, {"Retry-After": email.utils.format_datetime(later, usegmt=True)}))
    delivery = one_delivery(owner, receiver.url())

    # when the attempt is made
    run_ready_tasks()

    # then the next attempt is due then (to the second the header carries)
    delivery.refresh_from_db()
    assert abs((delivery.next_attempt_at - later).total_seconds()) <= 1.5


def test_after_the_last_retry_the_delivery_fails_and_the_registrant_is_notified(owner, receiver):
    # given a receiver that always fails (the tests' schedule has two retries)
    receiver.answer((500, {}), (500, {}), (500, {}))
    delivery = one_delivery(owner, receiver.url())
    events_before = Event.objects.count()

    # when the worker runs
    run_ready_tasks()

    # then three attempts, failed, and one in-app notification about the event's listing
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.next_attempt_at) == (
        DeliveryStatus.FAILED,
        3,
        None,
    )
    [notice] = Notification.objects.filter(user=owner)
    assert notice.status == NotificationStatus.ERROR
    assert notice.title == "Webhook delivery failed"
    assert notice.property_id == delivery.event.listing_id
    assert delivery.event_id in notice.message
    assert RECEIVER_BODY.decode() not in notice.message
    assert SECRET not in notice.message
    # the notice is not itself a notification.created event (a failing endpoint would loop)
    assert Event.objects.count() == events_before


def test_a_manual_retry_of_a_failed_delivery_that_fails_again_notifies_nobody(owner, receiver):
    # given a delivery that failed for good
    receiver.answer((500, {}), (500, {}), (500, {}), (500, {}))
    delivery = one_delivery(owner, receiver.url())
    run_ready_tasks()
    assert Notification.objects.filter(user=owner).count() == 1

    # when it is retried now and fails again
    delivery_retry_now(delivery=delivery, enqueue=deliveries_enqueue)
    run_ready_tasks()

    # then a fourth attempt was made, it is failed again, and nobody was told twice
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.FAILED, 4)
    assert Notification.objects.filter(user=owner).count() == 1


def test_a_manual_retry_of_a_failed_delivery_can_succeed(owner, receiver):
    # given a delivery that failed for good
    receiver.answer((500, {}), (500, {}), (500, {}))
    delivery = one_delivery(owner, receiver.url())
    run_ready_tasks()

    # when the receiver is fixed and the delivery retried now
    delivery_retry_now(delivery=delivery, enqueue=deliveries_enqueue)
    run_ready_tasks()

    # then it succeeded with a fourth attempt
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == (
        DeliveryStatus.SUCCEEDED,
        4,
        200,
    )


def test_a_slow_receiver_times_out(owner, receiver, settings):
    # given a receiver slower than the timeout
    settings.WEBHOOKS_TIMEOUT_SECONDS = 0.3
    settings.WEBHOOKS_RETRY_SCHEDULE = [60.0]
    receiver.delay = 1.5
    delivery = one_delivery(owner, receiver.url())

    # when the attempt is made
    run_ready_tasks()

    # then it failed as a timeout, and waits for its retry
    delivery.refresh_from_db()
    assert attempt_log(delivery) == [(None, DeliveryErrorKind.TIMEOUT)]
    assert delivery.status == DeliveryStatus.PENDING


def test_a_closed_port_is_a_connection_error(owner, settings):
    # given a URL where nothing listens
    settings.WEBHOOKS_RETRY_SCHEDULE = [60.0]
    port = free_port()
    delivery = one_delivery(owner, f"http://127.0.0.1:{port}/hook")

    # when the attempt is made
    run_ready_tasks()

    # then it failed as a connection error
    assert attempt_log(delivery) == [(None, DeliveryErrorKind.CONNECTION_ERROR)]


def test_the_request_goes_to_the_checked_address_with_the_host_name_as_host(
    owner, receiver, monkeypatch
):
    # given a host name that resolves to the receiver's address
    lookups = []
    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host == "hooks.example.test":
            lookups.append(host)
            return real_getaddrinfo("127.0.0.1", port, *args, **kwargs)
        return real_getaddrinfo(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    url = f"http://hooks.example.test:{receiver.port}/hook"
    delivery = one_delivery(owner, url)
    lookups.clear()

    # when the attempt is made
    run_ready_tasks()

    # then the name was resolved once, and the receiver saw it in the Host header
    assert lookups == ["hooks.example.test"]
    [request] = receiver.received()
    assert request.headers["host"] == f"hooks.example.test:{receiver.port}"
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.SUCCEEDED


def test_a_host_that_now_resolves_to_a_private_address_is_refused_at_delivery(
    owner, receiver, settings, monkeypatch
):
    # given a webhook registered while its host resolved to a public address
    settings.WEBHOOKS_ALLOW_PRIVATE_TARGETS = False
    settings.WEBHOOKS_RETRY_SCHEDULE = [60.0]
    answers = {"hooks.example.com": "93.184.216.34"}
    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host in answers:
            return real_getaddrinfo(answers[host], port, *args, **kwargs)
        return real_getaddrinfo(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    delivery = one_delivery(owner, "https://hooks.example.com/hook")

    # when its DNS answer changes to loopback (rebinding) before the attempt
    answers["hooks.example.com"] = "127.0.0.1"
    run_ready_tasks()

    # then nothing was sent, and the attempt says why
    assert receiver.requests == []
    assert attempt_log(delivery) == [(None, DeliveryErrorKind.BLOCKED_TARGET)]


def test_a_paused_endpoint_ends_its_pending_deliveries_without_an_attempt(owner, receiver):
    # given a pending delivery whose endpoint an admin then paused
    delivery = one_delivery(owner, receiver.url())
    WebhookEndpoint.objects.filter(pk=delivery.endpoint_id).update(active=False)

    # when the worker runs
    run_ready_tasks()

    # then nothing was sent and the delivery failed as "endpoint disabled"
    assert receiver.requests == []
    delivery.refresh_from_db()
    assert (delivery.status, delivery.last_error, delivery.attempts) == (
        DeliveryStatus.FAILED,
        DeliveryErrorKind.ENDPOINT_DISABLED,
        0,
    )


class WorkerKilled(BaseException):
    """Stands for the worker process dying in the middle of an attempt."""


def test_a_worker_dying_mid_attempt_leaves_a_task_that_attempts_again(
    owner, receiver, settings, monkeypatch
):
    # given a worker that dies while it sends
    settings.WEBHOOKS_ATTEMPT_LEASE_SECONDS = 0.0
    delivery = one_delivery(owner, receiver.url())
    real_post = delivery_module.target_post

    def dying_post(**kwargs):
        raise WorkerKilled

    monkeypatch.setattr(delivery_module, "target_post", dying_post)
    [task] = DBTaskResult.objects.ready()
    task.claim("dying-worker")
    with pytest.raises(WorkerKilled):
        task.task.call(*task.task_result.args)

    # when a worker runs later (the lease, 0 s here, has passed)
    monkeypatch.setattr(delivery_module, "target_post", real_post)
    run_ready_tasks()

    # then the delivery was attempted again and succeeded
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.SUCCEEDED, 1)
    assert len(receiver.received()) == 1


def test_the_sweep_enqueues_a_delivery_whose_task_was_lost(owner, receiver):
    # given a pending delivery overdue by an hour whose task is gone
    delivery = one_delivery(owner, receiver.url())
    DBTaskResult.objects.all().delete()
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        next_attempt_at=timezone.now() - datetime.timedelta(hours=1)
    )
    # and one that is due in an hour (not lost, only waiting)
    waiting = one_delivery(owner, receiver.url("/other"))
    DBTaskResult.objects.filter(args_kwargs__args=[waiting.pk]).delete()
    WebhookDelivery.objects.filter(pk=waiting.pk).update(
        next_attempt_at=timezone.now() + datetime.timedelta(hours=1)
    )

    # when the sweep runs, then the worker
    enqueued = deliveries_sweep(enqueue=deliveries_enqueue)
    run_ready_tasks()

    # then only the overdue one was enqueued, and it was delivered
    assert enqueued == 1
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.SUCCEEDED
    waiting.refresh_from_db()
    assert waiting.status == DeliveryStatus.PENDING


def test_running_a_task_twice_makes_one_attempt(owner, receiver):
    # given a delivery whose task was enqueued twice (the sweep and its own)
    delivery = one_delivery(owner, receiver.url())
    call_command("webhooks_sweep", stdout=None)

    # when the worker runs both
    run_ready_tasks()

    # then one request reached the receiver
    assert len(receiver.received()) == 1
    delivery.refresh_from_db()
    assert delivery.attempts == 1


def test_a_webhook_deleted_during_an_attempt_ends_it_quietly(owner, receiver, monkeypatch):
    # given an attempt during which the registrant deletes the webhook
    delivery = one_delivery(owner, receiver.url())
    real_post = delivery_module.target_post

    def post_then_delete(**kwargs):
        response = real_post(**kwargs)
        WebhookEndpoint.objects.filter(pk=delivery.endpoint_id).delete()
        return response

    monkeypatch.setattr(delivery_module, "target_post", post_then_delete)

    # when the attempt finishes
    outcome = delivery_module.delivery_attempt(delivery_id=delivery.id, enqueue=deliveries_enqueue)

    # then it says so, and nothing is left of the delivery
    assert outcome == "deleted"
    assert WebhookDelivery.objects.count() == 0
    assert WebhookAttempt.objects.count() == 0
