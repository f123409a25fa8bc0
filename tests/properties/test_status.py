"""The property state machine of D10 through PATCH /properties/:id, row by row and per role."""

import datetime

import pytest
from django.utils import timezone

from listings.models import HIDDEN_STATUSES, Property, PropertyStatus, TransactionType
from tests.factories import ListingFactory
from tests.properties.support import (
    WRITE_RESPONSE_KEYS,
    assert_problem,
    common_fields,
    listing_row,
    property_url,
)

pytestmark = pytest.mark.django_db

PENDING = PropertyStatus.PENDING
AVAILABLE = PropertyStatus.AVAILABLE
SOLD = PropertyStatus.SOLD
RENTED = PropertyStatus.RENTED
SUSPENDED = PropertyStatus.SUSPENDED
SALE = TransactionType.SALE
RENT = TransactionType.RENT

# (from, transaction type, to, role): every move of the D10 table, for each role it names.
ALLOWED_MOVES = [
    (PENDING, SALE, AVAILABLE, "admin"),
    (PENDING, RENT, AVAILABLE, "admin"),
    (PENDING, SALE, SUSPENDED, "admin"),
    (AVAILABLE, SALE, SOLD, "owner"),
    (AVAILABLE, SALE, SOLD, "admin"),
    (AVAILABLE, RENT, RENTED, "owner"),
    (AVAILABLE, RENT, RENTED, "admin"),
    (AVAILABLE, SALE, SUSPENDED, "admin"),
    (AVAILABLE, RENT, SUSPENDED, "admin"),
    (RENTED, RENT, AVAILABLE, "owner"),
    (RENTED, RENT, AVAILABLE, "admin"),
    (SOLD, SALE, AVAILABLE, "admin"),
    (SUSPENDED, SALE, AVAILABLE, "admin"),
    (SUSPENDED, SALE, PENDING, "admin"),
]

# Listed moves that the table reserves for admins: the owner gets 403.
ADMIN_ONLY_MOVES = [
    (PENDING, SALE, AVAILABLE),
    (PENDING, SALE, SUSPENDED),
    (AVAILABLE, SALE, SUSPENDED),
    (AVAILABLE, RENT, SUSPENDED),
    (SOLD, SALE, AVAILABLE),
    (SUSPENDED, SALE, AVAILABLE),
    (SUSPENDED, SALE, PENDING),
]

# Moves the table does not list, with the statuses it allows from there (for the detail).
UNLISTED_MOVES = [
    (AVAILABLE, RENT, SOLD, "RENTED, SUSPENDED"),
    (AVAILABLE, SALE, RENTED, "SOLD, SUSPENDED"),
    (AVAILABLE, SALE, PENDING, "SOLD, SUSPENDED"),
    (PENDING, SALE, SOLD, "AVAILABLE, SUSPENDED"),
    (PENDING, RENT, RENTED, "AVAILABLE, SUSPENDED"),
    (SOLD, SALE, RENTED, "AVAILABLE"),
    (SOLD, SALE, SUSPENDED, "AVAILABLE"),
    (SOLD, SALE, PENDING, "AVAILABLE"),
    (RENTED, RENT, SUSPENDED, "AVAILABLE"),
    (RENTED, RENT, SOLD, "AVAILABLE"),
    (RENTED, RENT, PENDING, "AVAILABLE"),
    (SUSPENDED, SALE, SOLD, "AVAILABLE, PENDING"),
    (SUSPENDED, RENT, RENTED, "AVAILABLE, PENDING"),
]


def make_listing(owner_record, status: str, transaction_type: str) -> Property:
    """A listing of the owner, last changed an hour ago, so a change shows in updatedAt."""
    listing = ListingFactory(owner=owner_record, status=status, transaction_type=transaction_type)
    earlier = timezone.now() - datetime.timedelta(hours=1)
    Property.objects.filter(pk=listing.pk).update(created_at=earlier, updated_at=earlier)
    listing.refresh_from_db()
    return listing


@pytest.mark.parametrize(("current", "transaction_type", "target", "role"), ALLOWED_MOVES)
def test_allowed_move_is_200_with_the_moved_listing(
    clients, owner_record, current, transaction_type, target, role
):
    # given
    listing = make_listing(owner_record, current, transaction_type)
    before = listing_row(listing.id)

    # when
    response = clients[role].patch(property_url(listing.id), {"status": target}, format="json")

    # then
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == WRITE_RESPONSE_KEYS
    assert body == {**common_fields(listing), "type": None}
    after = listing_row(listing.id)
    assert after["status"] == target
    assert after["public"] is (target not in HIDDEN_STATUSES)
    assert after["updated_at"] > before["updated_at"]
    unchanged = set(before) - {"status", "public", "updated_at"}
    assert {name: after[name] for name in unchanged} == {name: before[name] for name in unchanged}


@pytest.mark.parametrize(("current", "transaction_type", "target"), ADMIN_ONLY_MOVES)
def test_admin_only_move_by_the_owner_is_403_and_changes_nothing(
    owner_client, owner_record, current, transaction_type, target
):
    # given
    listing = make_listing(owner_record, current, transaction_type)
    before = listing_row(listing.id)

    # when
    response = owner_client.patch(property_url(listing.id), {"status": target}, format="json")

    # then
    body = assert_problem(response, status=403, code="permission_denied")
    assert body["detail"] == (
        f"Only an administrator may move a listing from {current} to {target}."
    )
    assert [error["field"] for error in body["errors"]] == ["status"]
    assert listing_row(listing.id) == before


@pytest.mark.parametrize("role", ["owner", "admin"])
@pytest.mark.parametrize(("current", "transaction_type", "target", "allowed"), UNLISTED_MOVES)
def test_unlisted_move_is_409_naming_the_allowed_next_statuses(
    clients, owner_record, current, transaction_type, target, allowed, role
):
    # given
    listing = make_listing(owner_record, current, transaction_type)
    before = listing_row(listing.id)

    # when
    response = clients[role].patch(property_url(listing.id), {"status": target}, format="json")

    # then
    body = assert_problem(response, status=409, code="invalid_transition")
    assert body["detail"] == (
        f"A {transaction_type} listing cannot move from {current} to {target}. "
        f"Allowed next statuses: {allowed}."
    )
    assert body["errors"] == [
        {"field": "status", "message": body["detail"], "code": "invalid_transition"}
    ]
    assert listing_row(listing.id) == before


@pytest.mark.parametrize("role", ["owner", "admin"])
@pytest.mark.parametrize(
    ("status", "transaction_type"),
    [(PENDING, SALE), (AVAILABLE, SALE), (SOLD, SALE), (RENTED, RENT), (SUSPENDED, RENT)],
)
def test_move_to_the_current_status_is_a_200_no_op(
    clients, owner_record, status, transaction_type, role
):
    # given
    listing = make_listing(owner_record, status, transaction_type)
    before = listing_row(listing.id)

    # when
    response = clients[role].patch(property_url(listing.id), {"status": status}, format="json")

    # then
    assert response.status_code == 200, response.content
    assert response.json() == {**common_fields(listing), "type": None}
    assert listing_row(listing.id) == before


@pytest.mark.parametrize("client_name", ["customer", "other_owner"])
def test_move_by_someone_who_does_not_manage_the_listing_is_403(clients, owner_record, client_name):
    # given
    listing = make_listing(owner_record, AVAILABLE, SALE)
    before = listing_row(listing.id)

    # when
    response = clients[client_name].patch(property_url(listing.id), {"status": SOLD}, format="json")

    # then
    assert_problem(response, status=403, code="permission_denied")
    assert listing_row(listing.id) == before


def test_a_listing_can_go_round_the_rent_cycle(owner_client, admin_client, owner_record):
    # given
    listing = make_listing(owner_record, PENDING, RENT)

    # when
    steps = [
        admin_client.patch(property_url(listing.id), {"status": AVAILABLE}, format="json"),
        owner_client.patch(property_url(listing.id), {"status": RENTED}, format="json"),
        owner_client.patch(property_url(listing.id), {"status": AVAILABLE}, format="json"),
        admin_client.patch(property_url(listing.id), {"status": SUSPENDED}, format="json"),
        admin_client.patch(property_url(listing.id), {"status": PENDING}, format="json"),
    ]

    # then
    assert [step.status_code for step in steps] == [200, 200, 200, 200, 200]
    assert [step.json()["status"] for step in steps] == [
        AVAILABLE,
        RENTED,
        AVAILABLE,
        SUSPENDED,
        PENDING,
    ]
    assert listing_row(listing.id)["status"] == PENDING
