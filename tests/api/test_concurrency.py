"""Registrations racing for one email: the database decides, and the losers get 409 (D5, D6)."""

from functools import partial

import pytest
from django.db.models import QuerySet
from rest_framework.test import APIClient

from accounts.models import Customer, User
from tests.api.support import PASSWORD, assert_problem
from tests.concurrency import run_at_once

RACERS = 10


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("email_check", ["as-written", "blind"])
def test_concurrent_registrations_with_one_email_make_one_account(
    throttle_rates, monkeypatch, email_check
):
    # given registrations allowed well beyond the racers' number
    throttle_rates(register="1000/min", anonymous="1000/min", signed_in="1000/min")
    if email_check == "blind":
        # and a service check that sees no account, so every racer reaches the insert
        # and only the database's unique constraints stand between them
        monkeypatch.setattr(QuerySet, "exists", lambda queryset: False)

    def register(number: int):
        """Register the contested email from a client of its own."""
        # each racer writes the email in its own case
        email = "Race@Example.com" if number % 2 else "race@example.COM"
        body = {"email": email, "password": PASSWORD, "name": f"Racer {number}"}
        return APIClient().post("/api/v1/users/register", body, format="json")

    # when ten clients register the same email at the same moment
    responses = run_at_once([partial(register, number) for number in range(RACERS)])

    # then exactly one wins, the others get 409, and none gets a 500
    statuses = sorted(response.status_code for response in responses)
    assert statuses == [201] + [409] * (RACERS - 1)
    for response in responses:
        if response.status_code == 409:
            assert_problem(
                response,
                409,
                "conflict",
                errors=[
                    {
                        "field": "email",
                        "message": "An account with this email already exists.",
                        "code": "conflict",
                    }
                ],
            )
    # and the database holds one user, with its one Customer record
    user = User.objects.get()
    assert user.email == "race@example.com"
    assert Customer.objects.filter(user=user).count() == 1
    assert Customer.objects.count() == 1
