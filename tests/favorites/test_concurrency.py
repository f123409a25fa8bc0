"""Identical POST /favorites racing: the database decides, the losers get 409 (D5)."""

from functools import partial

import pytest
from django.db.models import QuerySet
from rest_framework.test import APIClient

from accounts.services import access_token_issue
from favorites.models import Favorite
from tests.api.support import assert_problem
from tests.concurrency import run_at_once
from tests.factories import ListingFactory

RACERS = 20
DUPLICATE = {
    "field": "propertyId",
    "message": "This listing is already among the user's favorites.",
    "code": "conflict",
}


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("duplicate_check", ["as-written", "blind"])
def test_concurrent_identical_favorites_make_one_row(
    throttle_rates, monkeypatch, customer, duplicate_check
):
    # given requests allowed well beyond the racers' number, a listing, and one client per racer
    throttle_rates(signed_in="1000/min", anonymous="1000/min")
    listing = ListingFactory()
    tokens = [access_token_issue(user=customer)[0] for _racer in range(RACERS)]
    if duplicate_check == "blind":
        # and a service check that sees no favorite, so every racer reaches the insert
        # and only the database's unique constraint stands between them
        monkeypatch.setattr(QuerySet, "exists", lambda queryset: False)

    def save(number: int):
        """Save the listing from a client of its own."""
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {tokens[number]}")
        return client.post("/api/v1/favorites", {"propertyId": listing.id}, format="json")

    # when twenty clients save the same listing at the same moment
    responses = run_at_once([partial(save, number) for number in range(RACERS)])

    # then exactly one wins, the others get 409, and none gets a 500
    statuses = sorted(response.status_code for response in responses)
    assert statuses == [201] + [409] * (RACERS - 1)
    for response in responses:
        if response.status_code == 409:
            assert_problem(response, 409, "conflict", errors=[DUPLICATE])
    # and the database holds one favorite
    favorite = Favorite.objects.get()
    assert (favorite.user_id, favorite.property_id) == (customer.id, listing.id)
