"""Seeing and retrying deliveries: the management command and the back office (D12)."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts.models import Owner
from listings.services import property_update
from notifications.models import DeliveryStatus, WebhookDelivery
from notifications.services import webhook_register
from tests.factories import ListingFactory
from tests.webhooks.support import RECEIVER_BODY, SECRET, run_ready_tasks

pytestmark = pytest.mark.django_db

DELIVERIES_ADMIN = "/admin/notifications/webhookdelivery/"


def deliveries_of(owner, url: str, count: int) -> list[WebhookDelivery]:
    """`count` deliveries to the owner's webhook at `url` (property.updated events)."""
    endpoint = webhook_register(by=owner, url=url, events=["*"], secret=SECRET)
    listing = ListingFactory(owner=Owner.objects.get(user=owner))
    for number in range(count):
        property_update(property=listing, by=owner, changes={"title": f"Title {number}"})
    return list(WebhookDelivery.objects.filter(endpoint=endpoint).order_by("created_at", "id"))


def command(*arguments: str) -> str:
    out = io.StringIO()
    call_command("webhooks_deliveries", *arguments, stdout=out)
    return out.getvalue()


@pytest.fixture
def back_office(client, admin):
    client.force_login(admin)
    return client


# --- manage.py webhooks_deliveries ----------------------------------------------------------


def test_the_command_lists_pending_and_failed_deliveries(owner, receiver):
    # given one failed, one pending and one succeeded delivery
    failed, pending, succeeded = deliveries_of(owner, receiver.url(), 3)
    WebhookDelivery.objects.filter(pk=failed.pk).update(
        status=DeliveryStatus.FAILED, attempts=3, last_status_code=500, next_attempt_at=None
    )
    WebhookDelivery.objects.filter(pk=succeeded.pk).update(
        status=DeliveryStatus.SUCCEEDED, attempts=1, last_status_code=200, next_attempt_at=None
    )

    # when the command lists them
    output = command()

    # then the pending and the failed one, not the succeeded one
    assert failed.id in output
    assert pending.id in output
    assert succeeded.id not in output
    assert output.endswith("2 delivery(ies).\n")
    assert f"{failed.id}  failed     property.updated" in output
    assert "attempts=3  last=500/-" in output
    assert SECRET not in output
    # and --status picks one status
    assert succeeded.id in command("--status", "succeeded")
    assert pending.id not in command("--status", "failed")


def test_the_command_retries_a_failed_delivery_now(owner, receiver):
    # given a delivery that failed for good
    receiver.answer((500, {}), (500, {}), (500, {}))
    [delivery] = deliveries_of(owner, receiver.url(), 1)
    run_ready_tasks()
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.FAILED

    # when it is retried from the command (the receiver now answers 200)
    output = command("--retry", delivery.id)

    # then it was attempted at once, in the command's process, and succeeded
    assert output == f"{delivery.id}: succeeded after attempt 4 (status code 200, error -).\n"
    assert len(receiver.received()) == 4
    assert RECEIVER_BODY.decode() not in output


def test_the_command_refuses_to_retry_a_succeeded_or_unknown_delivery(owner, receiver):
    [delivery] = deliveries_of(owner, receiver.url(), 1)
    run_ready_tasks()
    with pytest.raises(CommandError, match="succeeded"):
        command("--retry", delivery.id)
    with pytest.raises(CommandError, match="No webhook delivery"):
        command("--retry", "zzzzzzzzzzzzzzzzzzzzzzzzz")


def test_the_sweep_command_enqueues_due_deliveries(owner, receiver):
    # given a due pending delivery whose task is gone
    [delivery] = deliveries_of(owner, receiver.url(), 1)
    DBTaskResult.objects.all().delete()

    # when the sweep command runs (as before a worker starts)
    out = io.StringIO()
    call_command("webhooks_sweep", stdout=out)

    # then its task is back, and the worker delivers it
    assert out.getvalue() == "1 due webhook delivery(ies) enqueued.\n"
    run_ready_tasks()
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.SUCCEEDED


# --- the back office ------------------------------------------------------------------------


def test_the_deliveries_page_lists_and_filters_by_status_and_endpoint(
    back_office, owner, other_owner, receiver
):
    # given deliveries to two endpoints, one of them failed
    first, second = deliveries_of(owner, receiver.url(), 2)
    [other] = deliveries_of(other_owner, receiver.url("/other"), 1)
    WebhookDelivery.objects.filter(pk=first.pk).update(status=DeliveryStatus.FAILED)

    # when an admin opens the list, filtered by status, then by endpoint
    everything = back_office.get(DELIVERIES_ADMIN)
    failed = back_office.get(DELIVERIES_ADMIN, {"status__exact": "failed"})
    by_endpoint = back_office.get(DELIVERIES_ADMIN, {"endpoint__id__exact": other.endpoint_id})

    # then each shows the deliveries it should
    assert everything.status_code == 200
    assert [d.pk for d in everything.context["cl"].result_list] == [other.pk, second.pk, first.pk]
    assert [d.pk for d in failed.context["cl"].result_list] == [first.pk]
    assert [d.pk for d in by_endpoint.context["cl"].result_list] == [other.pk]


def test_the_delivery_page_shows_its_attempts_and_no_response_body(back_office, owner, receiver):
    receiver.answer((500, {}))
    [delivery] = deliveries_of(owner, receiver.url(), 1)
    run_ready_tasks()

    url = reverse("admin:notifications_webhookdelivery_change", args=[delivery.pk])
    response = back_office.get(url)

    assert response.status_code == 200
    page = response.content.decode()
    assert "Non-2xx status" in page
    assert RECEIVER_BODY.decode() not in page
    assert SECRET not in page


def test_the_deliveries_page_is_read_only(back_office):
    response = back_office.get(DELIVERIES_ADMIN)
    assert response.context["has_add_permission"] is False


def test_retry_now_makes_the_selected_deliveries_due_and_enqueues_them(
    back_office, owner, receiver
):
    # given a failed delivery and a succeeded one
    failed, succeeded = deliveries_of(owner, receiver.url(), 2)
    DBTaskResult.objects.all().delete()
    WebhookDelivery.objects.filter(pk=failed.pk).update(
        status=DeliveryStatus.FAILED, next_attempt_at=None, attempts=3
    )
    WebhookDelivery.objects.filter(pk=succeeded.pk).update(
        status=DeliveryStatus.SUCCEEDED, next_attempt_at=None, attempts=1
    )
    before = timezone.now()

    # when an admin runs "Retry now" on both
    response = back_office.post(
        DELIVERIES_ADMIN,
        {"action": "retry_now", "_selected_action": [failed.pk, succeeded.pk], "index": "0"},
        follow=True,
    )

    # then the failed one is pending, due now, with a task; the succeeded one is untouched
    assert response.status_code == 200
    messages = [str(message) for message in response.context["messages"]]
    assert "1 delivery will be attempted now by the worker." in messages
    failed.refresh_from_db()
    assert failed.status == DeliveryStatus.PENDING
    assert failed.next_attempt_at >= before
    succeeded.refresh_from_db()
    assert succeeded.status == DeliveryStatus.SUCCEEDED
    [task] = DBTaskResult.objects.all()
    assert task.args_kwargs == {"args": [failed.pk], "kwargs": {}}
    # and the worker then delivers it
    run_ready_tasks()
    failed.refresh_from_db()
    assert (failed.status, failed.attempts) == (DeliveryStatus.SUCCEEDED, 4)


def test_the_events_page_lists_events(back_office, owner, receiver):
    deliveries_of(owner, receiver.url(), 1)
    response = back_office.get("/admin/notifications/event/")
    assert response.status_code == 200
    assert len(response.context["cl"].result_list) == 1
