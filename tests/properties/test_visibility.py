"""Who sees which listings (decisions D7): PENDING and SUSPENDED only their owner and admins."""

import pytest

from listings.models import PUBLIC_LISTING, Property, PropertyStatus, TransactionType
from tests.factories import ListingFactory
from tests.properties.support import PROPERTIES_URL, assert_problem, ids, property_url

pytestmark = pytest.mark.django_db

HIDDEN = [PropertyStatus.PENDING, PropertyStatus.SUSPENDED]
PUBLIC = [PropertyStatus.AVAILABLE, PropertyStatus.SOLD, PropertyStatus.RENTED]
OUTSIDERS = ["anonymous", "customer", "other_owner"]
MANAGERS = ["owner", "admin"]
EVERYONE = OUTSIDERS + MANAGERS


def listing_of(owner_record, status):
    transaction_type = TransactionType.RENT if status == PropertyStatus.RENTED else "SALE"
    return ListingFactory(owner=owner_record, status=status, transaction_type=transaction_type)


@pytest.mark.parametrize("viewer", OUTSIDERS)
@pytest.mark.parametrize("status", HIDDEN)
def test_hidden_listing_is_left_out_of_the_list_for_outsiders(
    clients, owner_record, viewer, status
):
    # given
    listing_of(owner_record, status)
    public = listing_of(owner_record, PropertyStatus.AVAILABLE)

    # when
    response = clients[viewer].get(PROPERTIES_URL)

    # then
    assert response.status_code == 200
    assert ids(response) == [public.id]
    assert response.json()["totalItems"] == 1


@pytest.mark.parametrize("viewer", OUTSIDERS)
@pytest.mark.parametrize("status", HIDDEN)
def test_hidden_listing_detail_is_404_for_outsiders(clients, owner_record, viewer, status):
    # given
    hidden = listing_of(owner_record, status)

    # when
    response = clients[viewer].get(property_url(hidden.id))

    # then
    assert_problem(response, status=404, code="not_found")


@pytest.mark.parametrize("viewer", MANAGERS)
@pytest.mark.parametrize("status", HIDDEN)
def test_hidden_listing_is_listed_for_its_owner_and_admins(clients, owner_record, viewer, status):
    # given
    hidden = listing_of(owner_record, status)
    public = listing_of(owner_record, PropertyStatus.AVAILABLE)

    # when
    response = clients[viewer].get(PROPERTIES_URL)

    # then
    assert response.status_code == 200
    assert set(ids(response)) == {hidden.id, public.id}
    assert response.json()["totalItems"] == 2


@pytest.mark.parametrize("viewer", MANAGERS)
@pytest.mark.parametrize("status", HIDDEN)
def test_hidden_listing_detail_is_shown_to_its_owner_and_admins(
    clients, owner_record, viewer, status
):
    # given
    hidden = listing_of(owner_record, status)

    # when
    response = clients[viewer].get(property_url(hidden.id))

    # then
    assert response.status_code == 200
    assert response.json()["id"] == hidden.id
    assert response.json()["status"] == status


@pytest.mark.parametrize("viewer", EVERYONE)
@pytest.mark.parametrize("status", PUBLIC)
def test_public_listing_is_listed_and_shown_to_everyone(clients, owner_record, viewer, status):
    # given
    public = listing_of(owner_record, status)

    # when
    listed = clients[viewer].get(PROPERTIES_URL)
    shown = clients[viewer].get(property_url(public.id))

    # then
    assert ids(listed) == [public.id]
    assert shown.status_code == 200
    assert shown.json()["id"] == public.id


def test_an_owner_sees_only_their_own_hidden_listings(
    owner_client, owner_record, other_owner_record
):
    # given
    own_pending = listing_of(owner_record, PropertyStatus.PENDING)
    own_suspended = listing_of(owner_record, PropertyStatus.SUSPENDED)
    listing_of(other_owner_record, PropertyStatus.PENDING)
    listing_of(other_owner_record, PropertyStatus.SUSPENDED)
    others_public = listing_of(other_owner_record, PropertyStatus.SOLD)

    # when
    response = owner_client.get(PROPERTIES_URL)

    # then
    assert set(ids(response)) == {own_pending.id, own_suspended.id, others_public.id}
    assert response.json()["totalItems"] == 3


def test_an_admin_sees_every_listing(admin_client, owner_record, other_owner_record):
    # given
    every_listing = [
        listing_of(each_owner, status)
        for each_owner in (owner_record, other_owner_record)
        for status in PropertyStatus.values
    ]

    # when
    response = admin_client.get(PROPERTIES_URL, {"limit": 100})

    # then
    assert set(ids(response)) == {listing.id for listing in every_listing}
    assert response.json()["totalItems"] == 10


@pytest.mark.parametrize("viewer", OUTSIDERS)
def test_filtering_by_a_hidden_status_or_owner_does_not_reveal_hidden_listings(
    clients, owner_record, viewer
):
    # given
    listing_of(owner_record, PropertyStatus.PENDING)
    listing_of(owner_record, PropertyStatus.SUSPENDED)

    # when
    by_pending = clients[viewer].get(PROPERTIES_URL, {"status": "PENDING"})
    by_suspended = clients[viewer].get(PROPERTIES_URL, {"status": "SUSPENDED"})
    by_owner = clients[viewer].get(PROPERTIES_URL, {"ownerId": owner_record.id})

    # then
    for response in (by_pending, by_suspended, by_owner):
        assert response.status_code == 200
        assert response.json()["properties"] == []
        assert response.json()["totalItems"] == 0


def test_an_owner_filtering_by_their_own_id_sees_their_hidden_listings(owner_client, owner_record):
    # given
    pending = listing_of(owner_record, PropertyStatus.PENDING)

    # when
    response = owner_client.get(PROPERTIES_URL, {"ownerId": owner_record.id, "status": "PENDING"})

    # then
    assert ids(response) == [pending.id]


def test_the_public_column_holds_the_public_statuses(owner_record):
    # given a listing of every status
    listings = {status: listing_of(owner_record, status) for status in PropertyStatus.values}

    # when the listings are read by the public indexes' condition
    public = set(Property.objects.filter(PUBLIC_LISTING).values_list("id", flat=True))

    # then it holds the public listings and nothing else
    assert public == {listings[status].id for status in PUBLIC}


def test_the_public_column_follows_a_status_written_later(owner_record):
    # given a pending listing and an available one
    pending = listing_of(owner_record, PropertyStatus.PENDING)
    available = listing_of(owner_record, PropertyStatus.AVAILABLE)

    # when each status is written by a queryset's update, no listing saved as a model
    Property.objects.filter(pk=pending.pk).update(status=PropertyStatus.AVAILABLE)
    Property.objects.filter(pk=available.pk).update(status=PropertyStatus.SUSPENDED)

    # then the database has computed the column again from each new status
    assert dict(Property.objects.values_list("id", "public")) == {
        pending.id: True,
        available.id: False,
    }
