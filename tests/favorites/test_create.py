"""POST /favorites: save a listing for yourself, or for anyone as an admin (D2, D4, D5, D7)."""

import pytest

from favorites.models import Favorite
from listings.models import PropertyStatus
from tests.api.support import assert_problem
from tests.factories import FavoriteFactory, ImageFactory, ListingFactory, PropertyFactory
from tests.favorites.support import (
    FAVORITE_KEYS,
    FAVORITE_PROPERTY_KEYS,
    FAVORITES_URL,
    UNKNOWN_ID,
    favorite_body,
    favorite_rows,
)

pytestmark = pytest.mark.django_db

DUPLICATE = {
    "field": "propertyId",
    "message": "This listing is already among the user's favorites.",
    "code": "conflict",
}
NOT_YOURS = {
    "field": "userId",
    "message": "You may manage only your own favorites.",
    "code": "permission_denied",
}


def invalid_property(message: str) -> list[dict[str, str]]:
    """The field errors of a propertyId the caller cannot name."""
    code = "required" if message == "This field is required." else "does_not_exist"
    return [{"field": "propertyId", "message": message, "code": code}]


def test_create_is_201_with_the_item_shape(customer_client, customer):
    # given a listing with a photo
    listing = ListingFactory()
    photo = ImageFactory(property=listing)

    # when
    response = customer_client.post(FAVORITES_URL, {"propertyId": listing.id}, format="json")

    # then
    assert response.status_code == 201
    body = response.json()
    assert set(body) == FAVORITE_KEYS
    assert set(body["property"]) == FAVORITE_PROPERTY_KEYS
    favorite = Favorite.objects.get()
    assert (favorite.user_id, favorite.property_id) == (customer.id, listing.id)
    assert body == favorite_body(favorite, images=[photo])


def test_create_with_the_callers_own_user_id_is_201(customer_client, customer):
    # given
    listing = ListingFactory()

    # when
    response = customer_client.post(
        FAVORITES_URL, {"propertyId": listing.id, "userId": customer.id}, format="json"
    )

    # then
    assert response.status_code == 201
    assert response.json()["userId"] == customer.id
    assert Favorite.objects.get().user_id == customer.id


def test_create_ignores_id_and_created_at_in_the_body(customer_client):
    # given
    listing = ListingFactory()
    body = {
        "propertyId": listing.id,
        "id": "aaaaaaaaaaaaaaaaaaaaaaaaa",
        "createdAt": "2001-01-01T00:00:00Z",
        "unknownField": "ignored",
    }

    # when
    response = customer_client.post(FAVORITES_URL, body, format="json")

    # then
    assert response.status_code == 201
    favorite = Favorite.objects.get()
    assert favorite.id != "aaaaaaaaaaaaaaaaaaaaaaaaa"
    assert response.json()["id"] == favorite.id
    assert favorite.created_at.year > 2001


@pytest.mark.parametrize("viewer", ["customer", "owner"])
def test_create_for_another_user_is_403_for_non_admins(clients, other_customer, viewer):
    # given
    listing = ListingFactory()

    # when
    response = clients[viewer].post(
        FAVORITES_URL, {"propertyId": listing.id, "userId": other_customer.id}, format="json"
    )

    # then
    assert_problem(response, 403, "permission_denied", errors=[NOT_YOURS])
    assert Favorite.objects.count() == 0


def test_create_for_an_unknown_user_is_403_for_non_admins(customer_client):
    # given
    listing = ListingFactory()

    # when
    response = customer_client.post(
        FAVORITES_URL, {"propertyId": listing.id, "userId": UNKNOWN_ID}, format="json"
    )

    # then the answer does not say whether the id exists
    assert_problem(response, 403, "permission_denied", errors=[NOT_YOURS])
    assert Favorite.objects.count() == 0


def test_an_admin_creates_a_favorite_for_another_user(admin_client, customer):
    # given
    listing = ListingFactory()

    # when
    response = admin_client.post(
        FAVORITES_URL, {"propertyId": listing.id, "userId": customer.id}, format="json"
    )

    # then
    assert response.status_code == 201
    favorite = Favorite.objects.get()
    assert (favorite.user_id, favorite.property_id) == (customer.id, listing.id)
    assert response.json() == favorite_body(favorite)


def test_an_admin_naming_an_unknown_user_is_400_on_user_id(admin_client):
    # given
    listing = ListingFactory()

    # when
    response = admin_client.post(
        FAVORITES_URL, {"propertyId": listing.id, "userId": UNKNOWN_ID}, format="json"
    )

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[{"field": "userId", "message": "No user has this id.", "code": "invalid"}],
    )
    assert Favorite.objects.count() == 0


def test_create_without_property_id_is_400(customer_client):
    # when
    response = customer_client.post(FAVORITES_URL, {}, format="json")

    # then
    assert_problem(
        response, 400, "validation_error", errors=invalid_property("This field is required.")
    )
    assert Favorite.objects.count() == 0


def test_create_with_an_unknown_property_id_is_400(customer_client):
    # when
    response = customer_client.post(FAVORITES_URL, {"propertyId": UNKNOWN_ID}, format="json")

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=invalid_property(f'Invalid pk "{UNKNOWN_ID}" - object does not exist.'),
    )
    assert Favorite.objects.count() == 0


@pytest.mark.parametrize("status", [PropertyStatus.PENDING, PropertyStatus.SUSPENDED])
@pytest.mark.parametrize("viewer", ["customer", "other_owner"])
def test_create_for_a_listing_the_caller_cannot_see_is_400(clients, owner, viewer, status):
    # given someone else's listing that is hidden from the caller
    hidden = PropertyFactory(owner=owner.owner, status=status)

    # when
    response = clients[viewer].post(FAVORITES_URL, {"propertyId": hidden.id}, format="json")

    # then it is answered exactly like an unknown id
    assert_problem(
        response,
        400,
        "validation_error",
        errors=invalid_property(f'Invalid pk "{hidden.id}" - object does not exist.'),
    )
    assert Favorite.objects.count() == 0


def test_an_owner_may_save_their_own_pending_listing(owner_client, owner):
    # given
    pending = PropertyFactory(owner=owner.owner, status=PropertyStatus.PENDING)

    # when
    response = owner_client.post(FAVORITES_URL, {"propertyId": pending.id}, format="json")

    # then
    assert response.status_code == 201
    assert Favorite.objects.get().property_id == pending.id


def test_a_duplicate_favorite_is_409_and_keeps_the_first(customer_client, customer):
    # given
    first = FavoriteFactory(user=customer)
    before = favorite_rows()

    # when
    response = customer_client.post(FAVORITES_URL, {"propertyId": first.property_id}, format="json")

    # then
    assert_problem(response, 409, "conflict", errors=[DUPLICATE])
    assert favorite_rows() == before


def test_the_same_listing_may_be_saved_by_two_users(customer_client, customer, other_customer):
    # given
    listing = ListingFactory()
    FavoriteFactory(user=other_customer, property=listing)

    # when
    response = customer_client.post(FAVORITES_URL, {"propertyId": listing.id}, format="json")

    # then
    assert response.status_code == 201
    assert set(Favorite.objects.values_list("user_id", flat=True)) == {
        customer.id,
        other_customer.id,
    }


@pytest.mark.parametrize(
    ("value", "message", "code"),
    [
        (None, "This field may not be null.", "null"),
        ("", "This field may not be blank.", "blank"),
        (["a"], "Not a valid string.", "invalid"),
        ({"id": "a"}, "Not a valid string.", "invalid"),
    ],
)
def test_create_with_a_malformed_user_id_is_400(customer_client, value, message, code):
    # given
    listing = ListingFactory()

    # when
    response = customer_client.post(
        FAVORITES_URL, {"propertyId": listing.id, "userId": value}, format="json"
    )

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[{"field": "userId", "message": message, "code": code}],
    )
    assert Favorite.objects.count() == 0


def test_anonymous_create_is_401(anonymous_client):
    # given
    listing = ListingFactory()

    # when
    response = anonymous_client.post(FAVORITES_URL, {"propertyId": listing.id}, format="json")

    # then
    assert_problem(response, 401, "not_authenticated")
    assert Favorite.objects.count() == 0
