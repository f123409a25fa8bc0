"""The webhook endpoints of the API (D7, D12): register, list, read, delete, deliveries."""

import base64
import json
import socket

import pytest

from accounts.models import Owner
from listings.services import property_update
from notifications.models import WebhookDelivery, WebhookEndpoint
from notifications.services import webhook_register
from tests.factories import ListingFactory
from tests.webhooks.support import (
    ATTEMPT_KEYS,
    DELIVERY_KEYS,
    ENDPOINT_KEYS,
    RECEIVER_BODY,
    REGISTER_URL,
    REGISTRATION_KEYS,
    SECRET,
    UNKNOWN_ID,
    WEBHOOKS_URL,
    deliveries_url,
    run_ready_tasks,
    webhook_url,
)

pytestmark = pytest.mark.django_db

HOOK_URL = "https://hooks.example.com/estate"


def register_body(**overrides) -> dict:
    return {"url": HOOK_URL, "events": ["property.created", "appointment.confirmed"], **overrides}


def field_errors(response) -> list[str]:
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "validation_error"
    return [error["field"] for error in response.json()["errors"]]


@pytest.fixture(autouse=True)
def public_hosts_resolve(monkeypatch):
    """hooks.example.com resolves to a public address, without the network."""
    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host == "hooks.example.com":
            return real_getaddrinfo("93.184.216.34", port, *args, **kwargs)
        return real_getaddrinfo(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


# --- POST /notifications/webhook/register ---------------------------------------------------


@pytest.mark.parametrize("role", ["owner", "admin"])
def test_registration_is_201_with_a_generated_secret(owner_client, admin_client, role):
    client = {"owner": owner_client, "admin": admin_client}[role]

    # when an owner or an admin registers without a secret
    response = client.post(REGISTER_URL, register_body(), format="json")

    # then the answer is the registration with a new whsec_ secret of 32 random bytes
    assert response.status_code == 201, response.content
    body = response.json()
    assert set(body) == REGISTRATION_KEYS
    endpoint = WebhookEndpoint.objects.get()
    assert body["id"] == endpoint.id
    assert body["url"] == HOOK_URL
    assert body["events"] == ["property.created", "appointment.confirmed"]
    assert body["active"] is True
    assert body["createdAt"].endswith("Z")
    assert body["secret"].startswith("whsec_")
    assert len(base64.b64decode(body["secret"].removeprefix("whsec_"), validate=True)) == 32
    assert endpoint.secret == body["secret"]


def test_two_registrations_get_different_secrets(owner_client):
    first = owner_client.post(REGISTER_URL, register_body(), format="json").json()
    second = owner_client.post(REGISTER_URL, register_body(), format="json").json()
    assert first["secret"] != second["secret"]


def test_a_given_secret_is_kept_as_given(owner_client):
    response = owner_client.post(REGISTER_URL, register_body(secret=SECRET), format="json")
    assert response.status_code == 201
    assert response.json()["secret"] == SECRET
    assert WebhookEndpoint.objects.get().secret == SECRET


def test_star_and_repeated_events_are_stored_once(owner_client):
    response = owner_client.post(
        REGISTER_URL,
        register_body(events=["*", "property.created", "property.created"]),
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["events"] == ["*", "property.created"]


def test_unknown_events_are_400_naming_events(owner_client):
    # when the events include names that do not exist
    response = owner_client.post(
        REGISTER_URL,
        register_body(events=["property.created", "property.sold", "listing.created"]),
        format="json",
    )

    # then 400 on events, naming the unknown ones, and nothing is registered
    assert field_errors(response) == ["events"]
    message = response.json()["errors"][0]["message"]
    assert message.startswith("Unknown events: property.sold, listing.created.")
    assert WebhookEndpoint.objects.count() == 0


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"events": ["*"]}, "url"),
        ({"url": "not a url", "events": ["*"]}, "url"),
        ({"url": HOOK_URL}, "events"),
        ({"url": HOOK_URL, "events": []}, "events"),
        ({"url": HOOK_URL, "events": "property.created"}, "events"),
        ({"url": HOOK_URL, "events": ["*"], "secret": "short"}, "secret"),
        ({"url": HOOK_URL, "events": ["*"], "secret": "whsec_not base64!!!!!!"}, "secret"),
        ({"url": HOOK_URL, "events": ["*"], "secret": ""}, "secret"),
    ],
)
def test_invalid_bodies_are_400_naming_the_field(owner_client, body, field):
    response = owner_client.post(REGISTER_URL, body, format="json")
    assert field_errors(response) == [field]
    assert WebhookEndpoint.objects.count() == 0


def test_a_customer_may_not_register(customer_client):
    response = customer_client.post(REGISTER_URL, register_body(), format="json")
    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"
    assert WebhookEndpoint.objects.count() == 0


def test_an_anonymous_visitor_may_not_register(anonymous_client):
    response = anonymous_client.post(REGISTER_URL, register_body(), format="json")
    assert response.status_code == 401
    assert WebhookEndpoint.objects.count() == 0


def test_the_register_path_takes_post_only(owner_client):
    assert owner_client.get(REGISTER_URL).status_code == 405
    assert owner_client.post(WEBHOOKS_URL, register_body(), format="json").status_code == 405


def test_the_register_path_works_with_a_trailing_slash(owner_client):
    response = owner_client.post(f"{REGISTER_URL}/", register_body(), format="json")
    assert response.status_code == 201


# --- GET /notifications/webhooks and /:id ---------------------------------------------------


def test_the_list_shows_the_callers_webhooks_without_secrets(owner, other_owner, owner_client):
    # given a webhook of the owner and one of another owner
    own = webhook_register(by=owner, url=HOOK_URL, events=["*"])
    webhook_register(by=other_owner, url=HOOK_URL, events=["*"])

    # when the owner lists
    response = owner_client.get(WEBHOOKS_URL)

    # then only theirs, in the paginated envelope, with no secret
    assert response.status_code == 200
    body = response.json()
    assert body["pagination"] == {"total": 1, "page": 1, "limit": 20, "pages": 1}
    [item] = body["data"]
    assert set(item) == ENDPOINT_KEYS
    assert item["id"] == own.id
    assert item["userId"] == owner.id
    assert own.secret not in response.content.decode()


def test_an_admin_lists_every_webhook(owner, other_owner, admin_client):
    webhook_register(by=owner, url=HOOK_URL, events=["*"])
    webhook_register(by=other_owner, url=HOOK_URL, events=["*"])
    response = admin_client.get(WEBHOOKS_URL)
    assert response.json()["pagination"]["total"] == 2


def test_a_customer_lists_none(owner, customer_client):
    webhook_register(by=owner, url=HOOK_URL, events=["*"])
    response = customer_client.get(WEBHOOKS_URL)
    assert response.status_code == 200
    assert response.json()["data"] == []


def test_the_detail_is_the_registration_without_its_secret(owner, owner_client):
    endpoint = webhook_register(by=owner, url=HOOK_URL, events=["property.created"])
    response = owner_client.get(webhook_url(endpoint.id))
    assert response.status_code == 200
    body = response.json()
    assert set(body) == ENDPOINT_KEYS
    assert body["events"] == ["property.created"]
    assert "secret" not in body
    assert endpoint.secret not in response.content.decode()


@pytest.mark.parametrize("viewer", ["other_owner", "customer"])
def test_someone_elses_webhook_is_404(owner, other_owner_client, customer_client, viewer):
    endpoint = webhook_register(by=owner, url=HOOK_URL, events=["*"])
    client = {"other_owner": other_owner_client, "customer": customer_client}[viewer]
    for url in (webhook_url(endpoint.id), deliveries_url(endpoint.id)):
        response = client.get(url)
        assert response.status_code == 404
        assert response.json()["code"] == "not_found"


def test_an_admin_reads_anyones_webhook(owner, admin_client):
    endpoint = webhook_register(by=owner, url=HOOK_URL, events=["*"])
    assert admin_client.get(webhook_url(endpoint.id)).status_code == 200


def test_an_unknown_webhook_is_404(owner_client):
    assert owner_client.get(webhook_url(UNKNOWN_ID)).status_code == 404


def test_reading_needs_a_signed_in_user(owner, anonymous_client):
    endpoint = webhook_register(by=owner, url=HOOK_URL, events=["*"])
    assert anonymous_client.get(WEBHOOKS_URL).status_code == 401
    assert anonymous_client.get(webhook_url(endpoint.id)).status_code == 401


# --- DELETE /notifications/webhooks/:id -----------------------------------------------------


@pytest.mark.parametrize("role", ["owner", "admin"])
def test_the_registrant_or_an_admin_deletes(owner, owner_client, admin_client, role):
    endpoint = webhook_register(by=owner, url=HOOK_URL, events=["*"])
    property_update(
        property=ListingFactory(owner=Owner.objects.get(user=owner)),
        by=owner,
        changes={"title": "Renamed"},
    )
    assert WebhookDelivery.objects.count() == 1
    client = {"owner": owner_client, "admin": admin_client}[role]

    response = client.delete(webhook_url(endpoint.id))

    assert response.status_code == 204
    assert response.content == b""
    assert WebhookEndpoint.objects.count() == 0
    assert WebhookDelivery.objects.count() == 0


def test_someone_else_deleting_is_404_and_deletes_nothing(owner, other_owner_client):
    endpoint = webhook_register(by=owner, url=HOOK_URL, events=["*"])
    response = other_owner_client.delete(webhook_url(endpoint.id))
    assert response.status_code == 404
    assert WebhookEndpoint.objects.filter(pk=endpoint.pk).exists()


# --- GET /notifications/webhooks/:id/deliveries ---------------------------------------------


def test_the_deliveries_are_the_attempt_log_without_response_bodies(owner, owner_client, receiver):
    # given a delivery that failed once (500), then succeeded
    endpoint = webhook_register(by=owner, url=receiver.url(), events=["*"], secret=SECRET)
    receiver.answer((500, {}))
    listing = ListingFactory(owner=Owner.objects.get(user=owner))
    property_update(property=listing, by=owner, changes={"title": "Renamed"})
    run_ready_tasks()

    # when the owner reads the deliveries
    response = owner_client.get(deliveries_url(endpoint.id))

    # then one delivery with two attempts: time, status code, duration, error kind
    assert response.status_code == 200
    body = response.json()
    assert body["pagination"] == {"total": 1, "page": 1, "limit": 20, "pages": 1}
    [item] = body["data"]
    assert set(item) == DELIVERY_KEYS
    delivery = WebhookDelivery.objects.get()
    assert item["id"] == delivery.id
    assert item["eventId"] == delivery.event_id
    assert item["eventType"] == "property.updated"
    assert (item["status"], item["attempts"], item["lastStatusCode"], item["lastError"]) == (
        "succeeded",
        2,
        200,
        None,
    )
    assert item["nextAttemptAt"] is None
    assert [set(attempt) for attempt in item["attemptLog"]] == [ATTEMPT_KEYS, ATTEMPT_KEYS]
    assert [(a["statusCode"], a["errorKind"]) for a in item["attemptLog"]] == [
        (500, "http_error"),
        (200, None),
    ]
    assert all(isinstance(a["durationMs"], int) for a in item["attemptLog"])
    assert all(a["attemptedAt"].endswith("Z") for a in item["attemptLog"])
    # and nothing the receiver said, nor the secret, is in the answer
    text = json.dumps(body)
    assert RECEIVER_BODY.decode() not in text
    assert SECRET not in text


def test_the_deliveries_are_paginated_newest_first(owner, owner_client):
    endpoint = webhook_register(by=owner, url=HOOK_URL, events=["*"])
    listing = ListingFactory(owner=Owner.objects.get(user=owner))
    for number in range(3):
        property_update(property=listing, by=owner, changes={"title": f"Title {number}"})
    newest_first = list(
        WebhookDelivery.objects.filter(endpoint=endpoint)
        .order_by("-created_at", "-id")
        .values_list("id", flat=True)
    )

    response = owner_client.get(deliveries_url(endpoint.id), {"page": 2, "limit": 2})

    assert response.json()["pagination"] == {"total": 3, "page": 2, "limit": 2, "pages": 2}
    assert [item["id"] for item in response.json()["data"]] == newest_first[2:]


def test_an_admin_reads_anyones_deliveries(owner, admin_client):
    endpoint = webhook_register(by=owner, url=HOOK_URL, events=["*"])
    assert admin_client.get(deliveries_url(endpoint.id)).status_code == 200
