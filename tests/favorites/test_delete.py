"""DELETE /favorites/:id and DELETE /favorites?propertyId=&userId= (D4, D5, D7)."""

import pytest

from favorites.models import Favorite
from listings.models import PropertyStatus
from tests.api.support import assert_problem
from tests.factories import FavoriteFactory, ListingFactory
from tests.favorites.support import FAVORITES_URL, UNKNOWN_ID, favorite_rows, favorite_url

pytestmark = pytest.mark.django_db

NOT_YOURS = {
    "field": "userId",
    "message": "You may manage only your own favorites.",
    "code": "permission_denied",
}
OUTSIDERS = ["other_customer", "other_owner"]


# --- DELETE /favorites/:id ---------------------------------------------------------------


def test_the_user_deletes_their_favorite_by_id(customer_client, customer):
    # given
    favorite = FavoriteFactory(user=customer)
    kept = FavoriteFactory(user=customer)

    # when
    response = customer_client.delete(favorite_url(favorite.id))

    # then
    assert response.status_code == 204
    assert response.content == b""
    assert list(Favorite.objects.values_list("id", flat=True)) == [kept.id]


def test_an_admin_deletes_anyones_favorite_by_id(admin_client, customer):
    # given
    favorite = FavoriteFactory(user=customer)

    # when
    response = admin_client.delete(favorite_url(favorite.id))

    # then
    assert response.status_code == 204
    assert Favorite.objects.count() == 0


@pytest.mark.parametrize("viewer", OUTSIDERS)
def test_another_users_favorite_is_404_and_stays(clients, customer, viewer):
    # given
    favorite = FavoriteFactory(user=customer)
    before = favorite_rows()

    # when
    response = clients[viewer].delete(favorite_url(favorite.id))

    # then
    assert_problem(response, 404, "not_found")
    assert favorite_rows() == before


def test_an_unknown_favorite_is_404(customer_client):
    # when
    response = customer_client.delete(favorite_url(UNKNOWN_ID))

    # then
    assert_problem(response, 404, "not_found")


def test_the_user_deletes_a_favorite_of_a_listing_now_hidden(customer_client, customer):
    # given a favorite whose listing was suspended since
    favorite = FavoriteFactory(
        user=customer, property=ListingFactory(status=PropertyStatus.SUSPENDED)
    )

    # when
    response = customer_client.delete(f"{favorite_url(favorite.id)}/")

    # then
    assert response.status_code == 204
    assert Favorite.objects.count() == 0


def test_anonymous_delete_by_id_is_401_and_deletes_nothing(anonymous_client, customer):
    # given
    favorite = FavoriteFactory(user=customer)
    before = favorite_rows()

    # when
    response = anonymous_client.delete(favorite_url(favorite.id))

    # then
    assert_problem(response, 401, "not_authenticated")
    assert favorite_rows() == before


# --- DELETE /favorites?propertyId=&userId= ----------------------------------------------


@pytest.mark.parametrize("path", [FAVORITES_URL, f"{FAVORITES_URL}/"])
def test_the_user_deletes_their_favorite_of_a_listing(customer_client, customer, path):
    # given the listing saved by the user and by someone else, and another favorite
    listing = ListingFactory()
    FavoriteFactory(user=customer, property=listing)
    others = FavoriteFactory(property=listing)
    kept = FavoriteFactory(user=customer)

    # when
    response = customer_client.delete(f"{path}?propertyId={listing.id}")

    # then
    assert response.status_code == 204
    assert response.content == b""
    assert set(Favorite.objects.values_list("id", flat=True)) == {others.id, kept.id}


def test_delete_by_listing_with_the_callers_own_user_id(customer_client, customer):
    # given
    favorite = FavoriteFactory(user=customer)

    # when
    response = customer_client.delete(
        f"{FAVORITES_URL}?propertyId={favorite.property_id}&userId={customer.id}"
    )

    # then
    assert response.status_code == 204
    assert Favorite.objects.count() == 0


def test_an_admin_deletes_another_users_favorite_of_a_listing(admin_client, customer):
    # given
    favorite = FavoriteFactory(user=customer)

    # when
    response = admin_client.delete(
        f"{FAVORITES_URL}?propertyId={favorite.property_id}&userId={customer.id}"
    )

    # then
    assert response.status_code == 204
    assert Favorite.objects.count() == 0


@pytest.mark.parametrize("viewer", OUTSIDERS)
def test_delete_by_listing_naming_another_user_is_403_and_deletes_nothing(
    clients, customer, viewer
):
    # given
    favorite = FavoriteFactory(user=customer)
    before = favorite_rows()

    # when
    response = clients[viewer].delete(
        f"{FAVORITES_URL}?propertyId={favorite.property_id}&userId={customer.id}"
    )

    # then
    assert_problem(response, 403, "permission_denied", errors=[NOT_YOURS])
    assert favorite_rows() == before


@pytest.mark.parametrize("viewer", OUTSIDERS)
def test_delete_by_listing_without_user_id_never_touches_another_users_favorite(
    clients, customer, viewer
):
    # given only the customer saved the listing
    favorite = FavoriteFactory(user=customer)
    before = favorite_rows()

    # when someone else deletes "their" favorite of it
    response = clients[viewer].delete(f"{FAVORITES_URL}?propertyId={favorite.property_id}")

    # then
    assert_problem(response, 404, "not_found")
    assert favorite_rows() == before


def test_delete_by_listing_without_property_id_is_400(customer_client, customer):
    # given
    FavoriteFactory(user=customer)
    before = favorite_rows()

    # when
    response = customer_client.delete(f"{FAVORITES_URL}?userId={customer.id}")

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[{"field": "propertyId", "message": "This field is required.", "code": "required"}],
    )
    assert favorite_rows() == before


def test_delete_by_listing_with_an_empty_property_id_is_400(customer_client):
    # when
    response = customer_client.delete(f"{FAVORITES_URL}?propertyId=")

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[
            {"field": "propertyId", "message": "This field may not be blank.", "code": "blank"}
        ],
    )


def test_delete_by_listing_that_is_not_a_favorite_is_404(customer_client, customer):
    # given a listing the user did not save
    listing = ListingFactory()
    FavoriteFactory(user=customer)
    before = favorite_rows()

    # when
    response = customer_client.delete(f"{FAVORITES_URL}?propertyId={listing.id}")

    # then
    body = assert_problem(response, 404, "not_found")
    assert body["detail"] == "This listing is not among the user's favorites."
    assert favorite_rows() == before


def test_delete_by_an_unknown_listing_is_404(customer_client):
    # when
    response = customer_client.delete(f"{FAVORITES_URL}?propertyId={UNKNOWN_ID}")

    # then
    body = assert_problem(response, 404, "not_found")
    assert body["detail"] == "This listing is not among the user's favorites."


def test_an_admin_naming_an_unknown_user_is_404(admin_client):
    # given
    listing = ListingFactory()
    FavoriteFactory(property=listing)
    before = favorite_rows()

    # when
    response = admin_client.delete(f"{FAVORITES_URL}?propertyId={listing.id}&userId={UNKNOWN_ID}")

    # then
    assert_problem(response, 404, "not_found")
    assert favorite_rows() == before


def test_anonymous_delete_by_listing_is_401_and_deletes_nothing(anonymous_client, customer):
    # given
    favorite = FavoriteFactory(user=customer)
    before = favorite_rows()

    # when
    response = anonymous_client.delete(f"{FAVORITES_URL}?propertyId={favorite.property_id}")

    # then
    assert_problem(response, 401, "not_authenticated")
    assert favorite_rows() == before
