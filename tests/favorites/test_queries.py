"""GET /favorites costs the same few queries whatever the number of favorites."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import FavoriteFactory, ImageFactory, ListingFactory
from tests.favorites.support import FAVORITES_URL

pytestmark = pytest.mark.django_db

# One to authenticate the token, then at most three: favorites with listings, photos.
MAX_QUERIES = 1 + 3
# The tables of the token lookup and of the favorites, read by statements prepared once.
TABLES = ("accounts_accesstoken", "favorites_favorite")


def save_favorites(user, count: int) -> None:
    """`count` favorites of the user, each listing with two photos."""
    for _number in range(count):
        listing = ListingFactory()
        ImageFactory.create_batch(2, property=listing)
        FavoriteFactory(user=user, property=listing)


def queries_of(client, parameters: dict | None = None) -> int:
    """How many queries one GET /favorites costs."""
    with CaptureQueriesContext(connection) as context:
        response = client.get(FAVORITES_URL, parameters or {})
    assert response.status_code == 200, response.content
    return len(context.captured_queries)


def test_list_costs_the_same_for_1_and_for_30_favorites(
    customer_client, customer, django_assert_num_queries
):
    # given one favorite, and the query count of the list
    save_favorites(customer, 1)
    queries_for_one = queries_of(customer_client)
    save_favorites(customer, 29)

    # when
    with django_assert_num_queries(queries_for_one):
        response = customer_client.get(FAVORITES_URL)

    # then
    assert queries_for_one <= MAX_QUERIES
    assert len(response.json()) == 30
    assert all(len(item["property"]["images"]) == 2 for item in response.json())


def test_an_admin_listing_another_user_costs_the_same(
    admin_client, customer, django_assert_num_queries
):
    # given
    save_favorites(customer, 1)
    queries_for_one = queries_of(admin_client, {"userId": customer.id})
    save_favorites(customer, 29)

    # when
    with django_assert_num_queries(queries_for_one):
        response = admin_client.get(FAVORITES_URL, {"userId": customer.id})

    # then
    assert queries_for_one <= MAX_QUERIES
    assert len(response.json()) == 30
