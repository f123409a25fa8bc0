"""Registrations racing for a user's last webhook place: the user's row lock decides (D12)."""

from functools import partial

import pytest

from notifications.models import WebhookEndpoint
from notifications.services import webhook_register
from tests.concurrency import run_at_once
from tests.support import signed_in_client
from tests.webhooks.support import REGISTER_URL

RACERS = 6


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_registrations_never_pass_the_limit(owner, settings, throttle_rates):
    # given an owner with room for one more webhook, and rates that let every racer through
    settings.WEBHOOKS_MAX_PER_USER = 3
    throttle_rates(webhook_register="1000/hour", signed_in="1000/min")
    for number in range(2):
        webhook_register(by=owner, url=f"http://127.0.0.1:9/{number}", events=["*"])
    clients = [signed_in_client(owner) for _ in range(RACERS)]
    body = {"url": "http://127.0.0.1:9/racer", "events": ["*"]}

    # when six registrations arrive at once, each from a client of its own
    responses = run_at_once(
        [partial(client.post, REGISTER_URL, body, format="json") for client in clients]
    )

    # then exactly one is registered, the others are 409
    assert sorted(response.status_code for response in responses) == [201] + [409] * (RACERS - 1)
    assert WebhookEndpoint.objects.filter(user=owner).count() == 3
    assert WebhookEndpoint.objects.filter(url="http://127.0.0.1:9/racer").count() == 1
