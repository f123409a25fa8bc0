"""Requests racing on one listing: one consistent outcome, never a 500 (D5, D9, D10).

Every racer sends its request from a client of its own, on a database connection of its own,
and all are released at the same moment (tests.concurrency.run_at_once).
"""

from decimal import Decimal
from functools import partial

import pytest
from django.db.models import QuerySet

from listings.models import (
    ModerationLog,
    Property,
    PropertyStatus,
    PropertyType,
    TransactionType,
    TypeSpecificRecord,
)
from tests.concurrency import run_at_once
from tests.factories import RECORD_VALUES, ListingFactory
from tests.support import signed_in_client

PROPERTIES_URL = "/api/v1/properties"
RECORD_PATHS = {
    PropertyType.HOUSE: "houses",
    PropertyType.APARTMENT: "apartments",
    PropertyType.LAND: "lands",
    PropertyType.OFFICE: "offices",
    PropertyType.COMMERCIAL: "commercials",
    PropertyType.HOTEL: "hotels",
    PropertyType.DEVELOPMENT: "developments",
}
SECOND_RECORD = {
    "field": "propertyId",
    "message": "This listing already has its type-specific record.",
    "code": "conflict",
}


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def record_body(kind: str, listing_id: str) -> dict:
    """A valid POST body of a record of this kind for the listing."""
    return {
        "propertyId": listing_id,
        **{camel(key): value for key, value in RECORD_VALUES[kind].items()},
    }


def problem(response) -> dict:
    """The problem document of an error answer, checked to be one."""
    assert response["Content-Type"] == "application/problem+json", response.content
    return response.json()


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("record_check", ["as-written", "blind"])
def test_concurrent_records_of_every_kind_leave_one(owner, monkeypatch, record_check):
    # given a listing in step 1 (no record yet), and two racers per kind, each on its own client
    listing = ListingFactory(owner=owner.owner)
    kinds = list(PropertyType.values) * 2
    requests = [
        partial(
            signed_in_client(owner).post,
            f"/api/v1/{RECORD_PATHS[kind]}",
            record_body(kind, listing.id),
            format="json",
        )
        for kind in kinds
    ]
    if record_check == "blind":
        # and a service check that sees no record, so every racer reaches the insert and
        # only the database's one-record-per-listing constraint stands between them
        monkeypatch.setattr(QuerySet, "exists", lambda queryset: False)

    # when all fourteen post a record at the same moment
    responses = run_at_once(requests)

    # then exactly one is created, every other one is a 409 conflict on propertyId, no 500
    statuses = sorted(response.status_code for response in responses)
    assert statuses == [201] + [409] * (len(kinds) - 1), [r.content for r in responses]
    for response in responses:
        if response.status_code == 409:
            body = problem(response)
            assert (body["code"], body["errors"]) == ("conflict", [SECOND_RECORD])
    # and the listing has one record, of the kind that won
    winner = next(kind for kind, r in zip(kinds, responses, strict=True) if r.status_code == 201)
    record = TypeSpecificRecord.objects.get(property=listing)
    assert record.kind == winner
    assert record.id == next(r for r in responses if r.status_code == 201).json()["id"]


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_owner_selling_while_admin_suspends_makes_one_move(owner, admin):
    # given an AVAILABLE listing on sale, five clients of its owner and five of an admin
    listing = ListingFactory(
        owner=owner.owner,
        status=PropertyStatus.AVAILABLE,
        transaction_type=TransactionType.SALE,
    )
    url = f"{PROPERTIES_URL}/{listing.id}"
    moves = [PropertyStatus.SOLD] * 5 + [PropertyStatus.SUSPENDED] * 5
    requests = [
        partial(
            signed_in_client(owner if move == PropertyStatus.SOLD else admin).patch,
            url,
            {"status": move},
            format="json",
        )
        for move in moves
    ]

    # when the owner marks it SOLD and the admin suspends it, all at the same moment
    responses = run_at_once(requests)

    # then one move is made: whoever came first wins. The later requests for the same status
    # find it there (a 200 no-op, D10); those for the other status are refused, because
    # neither SOLD -> SUSPENDED nor SUSPENDED -> SOLD is in the table (409 invalid_transition)
    listing.refresh_from_db()
    assert listing.status in (PropertyStatus.SOLD, PropertyStatus.SUSPENDED)
    for move, response in zip(moves, responses, strict=True):
        if move == listing.status:
            assert response.status_code == 200, response.content
            assert response.json()["status"] == listing.status
        else:
            assert response.status_code == 409, response.content
            assert problem(response)["code"] == "invalid_transition"
    # and the moderation log holds that one move, and only it
    assert list(ModerationLog.objects.values_list("property_id", "from_status", "to_status")) == [
        (listing.id, PropertyStatus.AVAILABLE, listing.status)
    ]


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_price_changes_apply_one_after_the_other(owner, admin):
    # given a listing, and ten clients (its owner's and an admin's) each with a price of its own
    listing = ListingFactory(owner=owner.owner, price=Decimal("500000.00"))
    url = f"{PROPERTIES_URL}/{listing.id}"
    prices = [float(400000 + 1000 * number) for number in range(10)]
    requests = [
        partial(
            signed_in_client(owner if number % 2 else admin).patch,
            url,
            {"price": price},
            format="json",
        )
        for number, price in enumerate(prices)
    ]

    # when all ten change the price at the same moment
    responses = run_at_once(requests)

    # then every change is applied, in turn, and each answer shows the price it set
    assert [response.status_code for response in responses] == [200] * len(prices)
    assert [response.json()["price"] for response in responses] == prices
    # and the last write wins: the stored price is the one of the answer written last
    listing.refresh_from_db()
    last = max(responses, key=lambda response: response.json()["updatedAt"])
    assert float(listing.price) == last.json()["price"]
    assert listing.updated_at.isoformat().replace("+00:00", "Z") == last.json()["updatedAt"]


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_changes_of_different_fields_are_all_kept(owner, admin):
    # given a listing, and three clients each changing a different field
    listing = ListingFactory(owner=owner.owner, title="Before", municipality="Madrid")
    url = f"{PROPERTIES_URL}/{listing.id}"
    changes = [{"title": "After"}, {"price": 123456.78}, {"municipality": "Toledo"}]
    clients = [signed_in_client(owner), signed_in_client(admin)]
    requests = [
        partial(clients[number % 2].patch, url, change, format="json")
        for number, change in enumerate(changes)
    ]

    # when all three are sent at the same moment
    responses = run_at_once(requests)

    # then none is lost: each request re-reads the listing under its row lock before writing
    assert [response.status_code for response in responses] == [200] * len(changes)
    row = Property.objects.values("title", "price", "municipality").get(pk=listing.id)
    assert row == {"title": "After", "price": Decimal("123456.78"), "municipality": "Toledo"}
