"""Each attempt has a hard deadline and reads a bounded answer (decisions D12).

A receiver that trickles its answer, a byte at a time and never slowly enough for one read
to time out, must not hold a worker past the attempt's deadline (WEBHOOKS_TIMEOUT_SECONDS,
for connecting, TLS, sending, the status line and the headers together): the attempt ends
as a timeout and is retried on the schedule, and the worker goes on with other deliveries.
At most 16 KiB of status line and headers are read, and never the body.
"""

import time

import pytest

from accounts.models import Owner, User
from listings.services import property_update
from notifications.models import DeliveryErrorKind, DeliveryStatus, WebhookAttempt, WebhookDelivery
from notifications.services import webhook_register
from tests.factories import ListingFactory
from tests.webhooks.support import HOST_NAME, SECRET, RawReceiver, run_ready_tasks

pytestmark = pytest.mark.django_db

# The attempt's deadline in these tests, and how late after it an attempt may still end on
# a busy 2-core machine (scheduling, the database writes of the attempt). Without the
# deadline, the trickling attempts below would last 6 s.
DEADLINE = 1.0
SLACK = 1.0
# The most of an answer's status line and headers read, as docs/webhooks.md says.
HEAD_LIMIT = 16 * 1024
# A complete answer: the trickling receivers send it a byte every 0.3 s for 6 s (so that
# without a deadline an attempt would end, with 200, after 6 s), then the rest at once.
TRICKLED_ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-Padding: " + b"a" * 200 + b"\r\n\r\n"


@pytest.fixture(autouse=True)
def short_deadline(settings):
    """A one-second deadline, and a first retry a minute later (so it is not run here)."""
    settings.WEBHOOKS_TIMEOUT_SECONDS = DEADLINE
    settings.WEBHOOKS_RETRY_SCHEDULE = [60.0]


def serve(server):
    server.start()
    yield server
    server.stop()


@pytest.fixture
def trickling_receiver():
    yield from serve(RawReceiver(TRICKLED_ANSWER, interval=0.3, trickle_for=6.0))


@pytest.fixture
def trickling_tls_receiver(server_tls):
    yield from serve(RawReceiver(TRICKLED_ANSWER, interval=0.3, trickle_for=6.0, tls=server_tls))


def pending_delivery(user: User, url: str) -> WebhookDelivery:
    """The user's webhook at `url`, and one pending delivery to it (a property.updated)."""
    endpoint = webhook_register(by=user, url=url, events=["*"], secret=SECRET)
    listing = ListingFactory(owner=Owner.objects.get(user=user), title="Loft")
    property_update(property=listing, by=user, changes={"title": "Loft, renamed"})
    return WebhookDelivery.objects.get(endpoint=endpoint)


def attempts(delivery: WebhookDelivery) -> list[tuple[int | None, str | None, int]]:
    return list(
        WebhookAttempt.objects.filter(delivery=delivery).values_list(
            "status_code", "error_kind", "duration_ms"
        )
    )


def assert_timed_out_at_the_deadline(delivery: WebhookDelivery) -> None:
    """One attempt, a timeout that lasted the deadline (not more), and a retry scheduled."""
    [(status_code, error_kind, duration_ms)] = attempts(delivery)
    assert (status_code, error_kind) == (None, DeliveryErrorKind.TIMEOUT)
    assert DEADLINE * 1000 <= duration_ms <= (DEADLINE + SLACK) * 1000
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.PENDING, 1)
    assert delivery.next_attempt_at is not None


def test_a_trickling_answer_ends_as_a_timeout_at_the_deadline(owner, trickling_receiver):
    # given a receiver that answers a byte every 0.3 s
    delivery = pending_delivery(owner, trickling_receiver.url())

    # when the attempt is made
    started = time.monotonic()
    run_ready_tasks()
    elapsed = time.monotonic() - started

    # then the request was sent whole, and the attempt ended as a timeout at the deadline
    [request] = trickling_receiver.requests
    assert request.headers["webhook-id"] == delivery.event_id
    assert elapsed <= DEADLINE + SLACK
    assert_timed_out_at_the_deadline(delivery)


def test_a_trickling_answer_over_tls_ends_as_a_timeout_at_the_deadline(
    owner, trickling_tls_receiver, certificate, settings, host_name_resolves_to_loopback
):
    # given an https receiver with a trusted certificate that answers a byte every 0.3 s
    settings.WEBHOOKS_CA_BUNDLE = str(certificate[0])
    delivery = pending_delivery(owner, trickling_tls_receiver.url(host=HOST_NAME))

    # when the attempt is made
    started = time.monotonic()
    run_ready_tasks()

    # then it ended as a timeout at the deadline
    assert time.monotonic() - started <= DEADLINE + SLACK
    assert len(trickling_tls_receiver.requests) == 1
    assert_timed_out_at_the_deadline(delivery)


def test_while_one_receiver_trickles_other_users_deliveries_go_on(
    owner, other_owner, trickling_receiver, receiver
):
    # given a delivery of one owner to a trickling receiver, queued first, and one of
    # another owner to a receiver that answers at once
    stuck = pending_delivery(owner, trickling_receiver.url())
    healthy = pending_delivery(other_owner, receiver.url())

    # when one worker runs the queue
    started = time.monotonic()
    ran = run_ready_tasks()
    elapsed = time.monotonic() - started

    # then the trickling attempt came first and gave the worker back at its deadline, and
    # the other delivery was made right after it
    assert [task.task_result.args for task in ran] == [[stuck.id], [healthy.id]]
    assert elapsed <= DEADLINE + 2 * SLACK
    assert_timed_out_at_the_deadline(stuck)
    healthy.refresh_from_db()
    assert (healthy.status, healthy.attempts, healthy.last_status_code) == (
        DeliveryStatus.SUCCEEDED,
        1,
        200,
    )
    assert len(receiver.received()) == 1


def answer_with_head_of(size: int) -> bytes:
    """A 200 whose status line and headers (with the blank line) are `size` bytes, and the
    start of a 1 MiB body that never comes whole."""
    start = b"HTTP/1.1 200 OK\r\nContent-Length: 1048576\r\nX-Padding: "
    head = start + b"a" * (size - len(start) - 4) + b"\r\n\r\n"
    assert len(head) == size
    return head + b"b" * 1000


@pytest.mark.parametrize(
    ("head_size", "outcome"),
    [
        (HEAD_LIMIT, (DeliveryStatus.SUCCEEDED, 200, None)),
        (HEAD_LIMIT + 1, (DeliveryStatus.PENDING, None, DeliveryErrorKind.CONNECTION_ERROR)),
    ],
)
def test_at_most_16_kib_of_status_line_and_headers_are_read(owner, head_size, outcome):
    # given a receiver whose answer's head has `head_size` bytes, followed by a body
    # that it never finishes sending
    server = RawReceiver(answer_with_head_of(head_size))
    server.start()
    try:
        delivery = pending_delivery(owner, server.url())

        # when the attempt is made
        run_ready_tasks()
    finally:
        server.stop()

    # then a head of 16 KiB is read, one byte more is refused; the body is never waited for
    delivery.refresh_from_db()
    assert (delivery.status, delivery.last_status_code, delivery.last_error) == outcome
    [(_status_code, _error_kind, duration_ms)] = attempts(delivery)
    assert duration_ms < DEADLINE * 1000


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        # An interim answer is skipped; the final one counts.
        (
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
            (DeliveryStatus.SUCCEEDED, 204, None),
        ),
        (
            b"HTTP/1.0 503 Service Unavailable\r\nretry-after: 120\r\n\r\n",
            (DeliveryStatus.PENDING, 503, DeliveryErrorKind.HTTP_ERROR),
        ),
        # Not HTTP at all: refused at its first line, without waiting for the deadline.
        (
            b"SSH-2.0-OpenSSH_9.6\r\n",
            (DeliveryStatus.PENDING, None, DeliveryErrorKind.CONNECTION_ERROR),
        ),
    ],
)
def test_the_answers_head_is_read_as_http(owner, answer, outcome):
    server = RawReceiver(answer)
    server.start()
    try:
        delivery = pending_delivery(owner, server.url())
        run_ready_tasks()
    finally:
        server.stop()

    delivery.refresh_from_db()
    assert (delivery.status, delivery.last_status_code, delivery.last_error) == outcome
    [(_status_code, _error_kind, duration_ms)] = attempts(delivery)
    assert duration_ms < DEADLINE * 1000
