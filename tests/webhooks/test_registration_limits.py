"""Limits on registering webhooks (D12, D13): at most WEBHOOKS_MAX_PER_USER webhooks per
user (409 past that), and registrations per user rate-limited (429)."""

import pytest
from django.conf import settings
from rest_framework.settings import api_settings

from notifications.models import WebhookEndpoint
from notifications.services import webhook_register
from tests.api.support import PROBLEM_CONTENT_TYPE
from tests.webhooks.support import REGISTER_URL, WEBHOOKS_URL, webhook_url

pytestmark = pytest.mark.django_db

# Private targets are allowed in the tests; a numeric address needs no DNS.
HOOK_URL = "http://127.0.0.1:9/hook"
LIMIT_DETAIL = "A user may have at most {limit} webhooks; delete one to register another."


def register(client, **overrides):
    body = {"url": HOOK_URL, "events": ["*"], **overrides}
    return client.post(REGISTER_URL, body, format="json")


def register_many(user, count: int) -> None:
    for number in range(count):
        webhook_register(by=user, url=f"{HOOK_URL}/{number}", events=["*"])


def assert_conflict(response, limit: int) -> None:
    assert response.status_code == 409, response.content
    assert response["Content-Type"] == PROBLEM_CONTENT_TYPE
    assert response.json() == {
        "type": "about:blank",
        "title": "Conflict",
        "status": 409,
        "detail": LIMIT_DETAIL.format(limit=limit),
        "code": "conflict",
    }


def assert_throttled(response) -> None:
    assert response.status_code == 429, response.content
    assert response["Content-Type"] == PROBLEM_CONTENT_TYPE
    retry_after = int(response["Retry-After"])
    assert 0 < retry_after <= 3600
    assert response.json() == {
        "type": "about:blank",
        "title": "Too many requests",
        "status": 429,
        "detail": f"Too many requests; retry after {retry_after} seconds.",
        "code": "throttled",
    }


# --- At most WEBHOOKS_MAX_PER_USER webhooks per user ------------------------------------------


def test_the_limit_defaults_to_10():
    assert settings.WEBHOOKS_MAX_PER_USER == 10


@pytest.mark.parametrize("role", ["owner", "admin"])
def test_an_eleventh_webhook_is_409_and_nothing_is_registered(
    owner, admin, owner_client, admin_client, role
):
    # given a user with ten webhooks
    user, client = {"owner": (owner, owner_client), "admin": (admin, admin_client)}[role]
    register_many(user, 10)

    # when they register an eleventh
    response = register(client)

    # then 409 conflict, and they still have ten
    assert_conflict(response, limit=10)
    assert WebhookEndpoint.objects.filter(user=user).count() == 10
    assert not WebhookEndpoint.objects.filter(url=HOOK_URL).exists()


def test_the_limit_is_per_user(owner, other_owner_client):
    # given an owner at the limit
    register_many(owner, 10)

    # when another owner registers
    response = register(other_owner_client)

    # then theirs is registered
    assert response.status_code == 201, response.content
    assert WebhookEndpoint.objects.count() == 11


def test_deleting_a_webhook_makes_room_for_another(owner, owner_client):
    # given an owner at the limit, who deletes one of their webhooks
    register_many(owner, 10)
    oldest = WebhookEndpoint.objects.filter(user=owner).order_by("created_at", "id").first()
    assert owner_client.delete(webhook_url(oldest.id)).status_code == 204

    # when they register again
    response = register(owner_client)

    # then it is registered, and they have ten again
    assert response.status_code == 201, response.content
    assert WebhookEndpoint.objects.filter(user=owner).count() == 10


def test_disabled_webhooks_count_too(owner, owner_client, settings):
    # given a limit of two, and an owner with two webhooks, one of them disabled (a 410)
    settings.WEBHOOKS_MAX_PER_USER = 2
    register_many(owner, 2)
    WebhookEndpoint.objects.filter(user=owner).update(active=False)

    # when they register a third
    response = register(owner_client)

    # then 409: an admin may turn a disabled webhook back on
    assert_conflict(response, limit=2)
    assert WebhookEndpoint.objects.filter(user=owner).count() == 2


def test_an_invalid_body_at_the_limit_is_still_400(owner, owner_client):
    register_many(owner, 10)
    response = register(owner_client, events=["property.sold"])
    assert response.status_code == 400
    assert [error["field"] for error in response.json()["errors"]] == ["events"]
    assert WebhookEndpoint.objects.filter(user=owner).count() == 10


# --- Registrations per user and hour ---------------------------------------------------------


def test_the_registration_rate_defaults_to_20_an_hour():
    assert api_settings.DEFAULT_THROTTLE_RATES["webhook_register"] == "20/hour"


def test_registrations_are_throttled_per_user(
    owner, owner_client, other_owner_client, throttle_rates
):
    # given a rate of two registrations an hour
    throttle_rates(webhook_register="2/hour")
    assert [register(owner_client).status_code for _ in range(2)] == [201, 201]

    # when the owner registers a third time
    response = register(owner_client)

    # then 429 with Retry-After, and nothing more is registered
    assert_throttled(response)
    assert WebhookEndpoint.objects.filter(user=owner).count() == 2
    # and another owner has a count of their own
    assert register(other_owner_client).status_code == 201
    # and reading or deleting webhooks is not registering
    assert owner_client.get(WEBHOOKS_URL).status_code == 200
    first = WebhookEndpoint.objects.filter(user=owner).first()
    assert owner_client.delete(webhook_url(first.id)).status_code == 204


def test_refused_registrations_count_too(owner_client, throttle_rates):
    # given a rate of two registrations an hour, spent on two invalid ones
    throttle_rates(webhook_register="2/hour")
    assert [register(owner_client, url="ftp://x").status_code for _ in range(2)] == [400, 400]

    # when a valid one follows
    response = register(owner_client)

    # then it is throttled, and nothing is registered
    assert_throttled(response)
    assert WebhookEndpoint.objects.count() == 0
