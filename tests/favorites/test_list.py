"""GET /favorites: a JSON array of one user's favorites, newest first (interface, D7, D8)."""

import datetime
import json

import pytest
from djangorestframework_camel_case.render import CamelCaseJSONRenderer

from config.api.renderers import CamelCasedJSONRenderer
from favorites import selectors
from favorites.api.serializers import FavoriteSerializer, favorite_items
from favorites.models import Favorite
from listings.models import PropertyStatus, TransactionType
from tests.api.support import assert_problem
from tests.factories import FavoriteFactory, ImageFactory, ListingFactory, PropertyFactory
from tests.favorites.support import (
    FAVORITE_KEYS,
    FAVORITE_PROPERTY_KEYS,
    FAVORITES_URL,
    UNKNOWN_ID,
    favorite_body,
    ids,
    spread_creation_times,
)

pytestmark = pytest.mark.django_db

HIDDEN = [PropertyStatus.PENDING, PropertyStatus.SUSPENDED]


def test_list_is_an_array_of_items_with_exactly_the_documented_keys(customer_client, customer):
    # given a favorite of a listing with two photos, the cover first
    listing = ListingFactory(title="Loft by the river", price="189000.50")
    cover = ImageFactory(property=listing, position=0)
    second = ImageFactory(property=listing, position=1)
    favorite = FavoriteFactory(user=customer, property=listing)

    # when
    response = customer_client.get(FAVORITES_URL)

    # then
    assert response.status_code == 200
    body = response.json()
    assert isinstance(body, list)
    [item] = body
    assert set(item) == FAVORITE_KEYS
    assert set(item["property"]) == FAVORITE_PROPERTY_KEYS
    assert item == favorite_body(favorite, images=[cover, second])
    assert item["property"]["price"] == 189000.5
    assert item["createdAt"].endswith("Z")
    urls = [image["url"] for image in item["property"]["images"]]
    assert all(url.startswith("http://testserver/") for url in urls)


def test_list_photos_follow_the_gallery_order(customer_client, customer):
    # given photos added in an order other than the gallery's
    listing = ListingFactory()
    third = ImageFactory(property=listing, position=2)
    first = ImageFactory(property=listing, position=0)
    second = ImageFactory(property=listing, position=1)
    FavoriteFactory(user=customer, property=listing)

    # when
    response = customer_client.get(FAVORITES_URL)

    # then
    [item] = response.json()
    assert [image["id"] for image in item["property"]["images"]] == [first.id, second.id, third.id]


def test_list_is_newest_first(customer_client, customer):
    # given three favorites saved in a known order
    oldest, middle, newest = FavoriteFactory.create_batch(3, user=customer)
    spread_creation_times(oldest, middle, newest)

    # when
    response = customer_client.get(FAVORITES_URL)

    # then
    assert ids(response) == [newest.id, middle.id, oldest.id]


def test_list_breaks_ties_of_creation_time_by_id_descending(customer_client, customer):
    # given favorites saved at the very same moment
    favorites = FavoriteFactory.create_batch(3, user=customer)
    moment = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
    Favorite.objects.update(created_at=moment)

    # when
    response = customer_client.get(FAVORITES_URL)

    # then
    assert ids(response) == sorted((favorite.id for favorite in favorites), reverse=True)


def test_list_without_favorites_is_an_empty_array(customer_client, other_customer):
    # given favorites of someone else only
    FavoriteFactory(user=other_customer)

    # when
    response = customer_client.get(FAVORITES_URL)

    # then
    assert response.status_code == 200
    assert response.json() == []


def test_list_shows_only_the_callers_own_favorites(customer_client, customer, other_customer):
    # given the same listing saved by two users
    listing = ListingFactory()
    own = FavoriteFactory(user=customer, property=listing)
    FavoriteFactory(user=other_customer, property=listing)

    # when
    response = customer_client.get(FAVORITES_URL)

    # then
    assert ids(response) == [own.id]


@pytest.mark.parametrize("status", HIDDEN)
def test_list_leaves_out_listings_the_caller_can_no_longer_see(customer_client, customer, status):
    # given a favorite whose listing went back to moderation or was suspended
    visible = FavoriteFactory(user=customer, property=ListingFactory())
    hidden = FavoriteFactory(user=customer, property=ListingFactory(status=status))

    # when
    response = customer_client.get(FAVORITES_URL)

    # then the hidden one is left out, and still stored
    assert ids(response) == [visible.id]
    assert Favorite.objects.filter(pk=hidden.pk).exists()


@pytest.mark.parametrize("status", HIDDEN)
def test_an_owner_still_sees_favorites_of_their_own_hidden_listings(owner_client, owner, status):
    # given an owner who saved their own listing, now hidden from everyone else
    listing = PropertyFactory(owner=owner.owner, status=status)
    favorite = FavoriteFactory(user=owner, property=listing)

    # when
    response = owner_client.get(FAVORITES_URL)

    # then
    assert ids(response) == [favorite.id]
    assert response.json()[0]["property"]["status"] == status


@pytest.mark.parametrize(
    "status",
    [PropertyStatus.AVAILABLE, PropertyStatus.SOLD, PropertyStatus.RENTED],
)
def test_list_keeps_listings_that_are_sold_or_rented(customer_client, customer, status):
    # given
    kind = TransactionType.RENT if status == PropertyStatus.RENTED else TransactionType.SALE
    listing = ListingFactory(status=status, transaction_type=kind)
    favorite = FavoriteFactory(user=customer, property=listing)

    # when
    response = customer_client.get(FAVORITES_URL)

    # then
    assert ids(response) == [favorite.id]
    assert response.json()[0]["property"]["status"] == status


def test_user_id_of_the_caller_lists_their_own(customer_client, customer):
    # given
    favorite = FavoriteFactory(user=customer)

    # when
    response = customer_client.get(FAVORITES_URL, {"userId": customer.id})

    # then
    assert ids(response) == [favorite.id]


@pytest.mark.parametrize("viewer", ["customer", "owner"])
def test_user_id_of_another_user_is_403_for_non_admins(clients, other_customer, viewer):
    # given
    FavoriteFactory(user=other_customer)

    # when
    response = clients[viewer].get(FAVORITES_URL, {"userId": other_customer.id})

    # then
    assert_problem(
        response,
        403,
        "permission_denied",
        errors=[
            {
                "field": "userId",
                "message": "You may list only your own favorites.",
                "code": "permission_denied",
            }
        ],
    )


def test_an_unknown_user_id_is_403_for_non_admins(customer_client):
    # when
    response = customer_client.get(FAVORITES_URL, {"userId": UNKNOWN_ID})

    # then the answer does not say whether the id exists
    assert_problem(
        response,
        403,
        "permission_denied",
        errors=[
            {
                "field": "userId",
                "message": "You may list only your own favorites.",
                "code": "permission_denied",
            }
        ],
    )


def test_an_admin_lists_another_users_favorites_hidden_listings_included(admin_client, customer):
    # given
    public = FavoriteFactory(user=customer, property=ListingFactory())
    hidden = FavoriteFactory(user=customer, property=ListingFactory(status="PENDING"))
    spread_creation_times(public, hidden)

    # when
    response = admin_client.get(FAVORITES_URL, {"userId": customer.id})

    # then
    assert ids(response) == [hidden.id, public.id]
    assert {item["userId"] for item in response.json()} == {customer.id}


def test_an_admin_without_user_id_lists_their_own(admin_client, admin, customer):
    # given
    own = FavoriteFactory(user=admin)
    FavoriteFactory(user=customer)

    # when
    response = admin_client.get(FAVORITES_URL)

    # then
    assert ids(response) == [own.id]


def test_an_admin_naming_an_unknown_user_gets_an_empty_array(admin_client):
    # when
    response = admin_client.get(FAVORITES_URL, {"userId": UNKNOWN_ID})

    # then
    assert response.status_code == 200
    assert response.json() == []


@pytest.mark.parametrize("path", [FAVORITES_URL, f"{FAVORITES_URL}/"])
def test_list_answers_with_and_without_a_trailing_slash(customer_client, customer, path):
    # given
    favorite = FavoriteFactory(user=customer)

    # when
    response = customer_client.get(path)

    # then
    assert response.status_code == 200
    assert ids(response) == [favorite.id]


def test_anonymous_list_is_401(anonymous_client):
    # when
    response = anonymous_client.get(FAVORITES_URL)

    # then
    assert_problem(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Bearer"


def test_get_of_one_favorite_is_405(customer_client, customer):
    # given a favorite (the interface has no detail read of favorites)
    favorite = FavoriteFactory(user=customer)

    # when
    response = customer_client.get(f"{FAVORITES_URL}/{favorite.id}")

    # then
    assert_problem(response, 405, "method_not_allowed")


def test_list_items_equal_what_the_model_serializer_makes(rf, customer):
    # given favorites of listings with photos in a chosen order, and one without photos
    for price in ("1234.50", "99.00"):
        listing = ListingFactory(price=price)
        ImageFactory(property=listing, position=2)
        ImageFactory(property=listing, position=0)
        FavoriteFactory(user=customer, property=listing)
    FavoriteFactory(user=customer, property=ListingFactory(transaction_type="RENT"))
    request = rf.get("/api/v1/favorites")

    # when the list is built from rows and by the model serializer
    fast = favorite_items(selectors.favorite_list_rows(viewer=customer), request=request)
    slow = FavoriteSerializer(
        selectors.favorite_list(viewer=customer), many=True, context={"request": request}
    ).data

    # then both render to the same JSON
    assert len(fast) == 3
    assert json.loads(CamelCasedJSONRenderer().render(fast)) == json.loads(
        CamelCaseJSONRenderer().render(slow)
    )
