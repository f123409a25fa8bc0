"""The real worker, `manage.py db_worker`, as a subprocess against the test database.

These tests commit their rows (transaction=True) so that the worker process sees them: on
PostgreSQL it connects to the test database, on SQLite to the test database's file (the test
settings keep it in a file for this). The kill test kills the worker with SIGKILL while a
delivery is in flight, writes more events while no worker runs, starts it again, and
checks that every event reached the receiver at least once.
"""

import os
import signal
import subprocess
import sys
import time
import urllib.parse

import pytest
from django.conf import settings
from django.db import connection
from standardwebhooks.webhooks import Webhook

from accounts.models import Owner
from listings.services import property_update
from notifications.models import DeliveryStatus, Event, WebhookDelivery
from notifications.services import webhook_register
from tests.factories import ListingFactory
from tests.webhooks.support import SECRET

pytestmark = pytest.mark.django_db(transaction=True)

# Settings of the worker process: retries and the attempt lease shrunk to fractions of
# seconds, so that what takes hours in production takes moments here.
WORKER_SETTINGS = {
    "WEBHOOKS_ALLOW_PRIVATE_TARGETS": "true",
    "WEBHOOKS_RETRY_SCHEDULE": "0.2,0.2,0.2",
    "WEBHOOKS_RETRY_JITTER": "0",
    "WEBHOOKS_ATTEMPT_LEASE_SECONDS": "2",
    "WEBHOOKS_SWEEP_INTERVAL_SECONDS": "1",
}


def database_url() -> str:
    """DATABASE_URL of the test database this process uses."""
    database = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{database['NAME']}"
    user = urllib.parse.quote(database["USER"] or "")
    password = f":{urllib.parse.quote(database['PASSWORD'])}" if database["PASSWORD"] else ""
    host = database["HOST"] or "localhost"
    port = database["PORT"] or 5432
    return f"postgres://{user}{password}@{host}:{port}/{database['NAME']}"


class WorkerProcess:
    """`manage.py db_worker` in a subprocess, started, killed and restarted by the test."""

    def __init__(self, log_path) -> None:
        self.log_path = log_path
        self.process: subprocess.Popen | None = None
        self.environment = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": database_url(),
            **WORKER_SETTINGS,
        }

    def start(self) -> None:
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "manage.py",
                    "db_worker",
                    "--interval",
                    "0.1",
                    "--no-startup-delay",
                    "--no-reload",
                ],
                cwd=settings.BASE_DIR,
                env=self.environment,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def kill(self) -> None:
        """SIGKILL: the process dies at once, in the middle of whatever it was doing."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM: the worker finishes its task and exits."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.kill()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@pytest.fixture
def worker(tmp_path):
    process = WorkerProcess(tmp_path / "worker.log")
    yield process
    process.stop()


def wait_until(condition, *, seconds: float, what: str, worker: WorkerProcess) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"Timed out waiting for {what}. Worker log:\n{worker.log()}")


def all_delivered() -> bool:
    statuses = set(WebhookDelivery.objects.values_list("status", flat=True))
    return statuses == {DeliveryStatus.SUCCEEDED}


def test_the_worker_delivers_signed_events_and_retries(owner, admin, receiver, worker):
    # given an admin's webhook, a receiver that fails twice, and a listing change
    webhook_register(by=admin, url=receiver.url(), events=["*"], secret=SECRET)
    receiver.answer((500, {}), (500, {}))
    listing = ListingFactory(owner=Owner.objects.get(user=owner))
    property_update(property=listing, by=owner, changes={"title": "Renamed"})
    [event] = Event.objects.all()

    # when the worker runs
    worker.start()
    wait_until(all_delivered, seconds=60, what="the delivery", worker=worker)

    # then three attempts with one webhook-id, the last one accepted by the verifier
    requests = receiver.received()
    assert len(requests) == 3
    assert {request.headers["webhook-id"] for request in requests} == {event.id}
    body = Webhook(SECRET).verify(requests[-1].body, requests[-1].headers)
    assert (body["id"], body["type"], body["data"]["title"]) == (
        event.id,
        "property.updated",
        "Renamed",
    )
    delivery = WebhookDelivery.objects.get()
    assert (delivery.attempts, delivery.last_status_code) == (3, 200)


def test_killing_the_worker_mid_delivery_loses_no_event(owner, admin, receiver, worker):
    # given an admin's webhook whose receiver holds each request half a second
    webhook_register(by=admin, url=receiver.url(), events=["property.updated"], secret=SECRET)
    receiver.delay = 0.5
    listing = ListingFactory(owner=Owner.objects.get(user=owner))
    # and three events written while no worker runs
    for number in range(3):
        property_update(property=listing, by=owner, changes={"title": f"Title {number}"})

    # when the worker starts, and is killed while its first request is in flight
    worker.start()
    wait_until(lambda: len(receiver.received()) >= 1, seconds=60, what="a request", worker=worker)
    worker.kill()
    in_flight = receiver.received()[0].headers["webhook-id"]
    # and three more events are written while it is dead, then it starts again
    for number in range(3, 6):
        property_update(property=listing, by=owner, changes={"title": f"Title {number}"})
    assert WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING).count() == 6
    worker.start()
    wait_until(all_delivered, seconds=90, what="every delivery", worker=worker)

    # then every event reached the receiver, and the one in flight was sent again
    event_ids = set(Event.objects.values_list("id", flat=True))
    received_ids = [request.headers["webhook-id"] for request in receiver.received()]
    assert len(event_ids) == 6
    assert set(received_ids) == event_ids
    assert received_ids.count(in_flight) >= 2
    verifier = Webhook(SECRET)
    for request in receiver.received():
        assert verifier.verify(request.body, request.headers)["type"] == "property.updated"
