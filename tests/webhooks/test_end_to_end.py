"""End to end through the API: changes deliver signed events to a real receiver (D12).

The receiver is an HTTP server on loopback (WEBHOOKS_ALLOW_PRIVATE_TARGETS is on in the test
settings); the tasks run in this process through the worker's own task runner. The
signatures are checked by an independent verifier, the `standardwebhooks` package.
"""

import datetime
import time

import pytest
from django.utils import timezone
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from accounts.models import Owner
from listings.services import property_update
from notifications.models import Event
from notifications.services import webhook_register
from tests.factories import CategoryFactory, ListingFactory
from tests.webhooks.support import BODY_KEYS, REGISTER_URL, SECRET, run_ready_tasks

pytestmark = pytest.mark.django_db

PROPERTIES_URL = "/api/v1/properties"
APPOINTMENTS_URL = "/api/v1/appointments"


def listing_body() -> dict:
    return {
        "title": "Loft by the river",
        "description": "Bright, two floors.",
        "price": 250000,
        "latitude": 40.41,
        "longitude": -3.70,
        "transactionType": "SALE",
        "municipality": "Madrid",
        "address": "1 Calle Mayor",
        "area": 120.5,
        "categoryId": CategoryFactory(name="Residential").id,
    }


def test_listing_and_visit_changes_deliver_signed_events_a_verifier_accepts(
    owner_client, admin_client, customer_client, receiver
):
    # given the owner's webhook for four events, with a secret of their own
    registration = owner_client.post(
        REGISTER_URL,
        {
            "url": receiver.url(),
            "events": [
                "property.created",
                "property.updated",
                "property.status_changed",
                "appointment.confirmed",
            ],
            "secret": SECRET,
        },
        format="json",
    )
    assert registration.status_code == 201, registration.content

    # when the owner creates and updates a listing, an admin approves it, a customer books
    # a visit and the owner confirms it
    created = owner_client.post(PROPERTIES_URL, listing_body(), format="json")
    listing_id = created.json()["id"]
    updated = owner_client.patch(
        f"{PROPERTIES_URL}/{listing_id}", {"title": "Loft by the old river"}, format="json"
    )
    approved = admin_client.patch(
        f"{PROPERTIES_URL}/{listing_id}", {"status": "AVAILABLE"}, format="json"
    )
    booked = customer_client.post(
        APPOINTMENTS_URL,
        {"propertyId": listing_id, "date": (timezone.now() + datetime.timedelta(days=2))},
        format="json",
    )
    confirmed = owner_client.patch(
        f"{APPOINTMENTS_URL}/{booked.json()['id']}", {"status": "CONFIRMED"}, format="json"
    )
    assert [r.status_code for r in (created, updated, approved, booked, confirmed)] == [
        201,
        200,
        200,
        201,
        200,
    ]
    before_delivery = int(time.time())
    run_ready_tasks()

    # then the receiver got the four events, in order, each signed so that the verifier
    # accepts it, each body carrying the resource exactly as the API answered it
    received = receiver.received()
    assert [request.json["type"] for request in received] == [
        "property.created",
        "property.updated",
        "property.status_changed",
        "appointment.confirmed",
    ]
    verifier = Webhook(SECRET)
    for request, answer in zip(received, (created, updated, approved, confirmed), strict=True):
        assert request.method == "POST"
        assert request.headers["content-type"] == "application/json"
        body = verifier.verify(request.body, request.headers)
        assert set(body) == BODY_KEYS
        event = Event.objects.get(pk=body["id"])
        assert request.headers["webhook-id"] == event.id
        assert before_delivery <= int(request.headers["webhook-timestamp"]) <= time.time()
        assert body["type"] == event.type
        assert body["timestamp"] == event.occurred_at.isoformat().replace("+00:00", "Z")
        assert body["data"] == answer.json()


def test_a_tampered_body_fails_verification(owner, receiver):
    # given a delivered property.updated event
    webhook_register(by=owner, url=receiver.url(), events=["*"], secret=SECRET)
    listing = ListingFactory(owner=Owner.objects.get(user=owner))
    property_update(property=listing, by=owner, changes={"title": "New title"})
    run_ready_tasks()
    [request] = receiver.received()
    verifier = Webhook(SECRET)
    assert verifier.verify(request.body, request.headers)["type"] == "property.updated"

    # when one byte of the body changes (in the title)
    tampered = request.body.replace(b"New title", b"New titlf")

    # then the verifier refuses it
    assert tampered != request.body
    with pytest.raises(WebhookVerificationError):
        verifier.verify(tampered, request.headers)
