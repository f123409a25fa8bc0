"""The favorites services on their own: the rules hold for every caller, not only the API."""

import pytest

from config.errors import Conflict, NotFound, PermissionRefused
from favorites import services
from favorites.models import Favorite
from tests.factories import FavoriteFactory, ListingFactory
from tests.favorites.support import favorite_rows

pytestmark = pytest.mark.django_db


def test_favorite_add_saves_the_pair_once(customer):
    # given
    listing = ListingFactory()
    first = services.favorite_add(user=customer, property=listing, by=customer)

    # when
    with pytest.raises(Conflict) as raised:
        services.favorite_add(user=customer, property=listing, by=customer)

    # then
    assert raised.value.field == "propertyId"
    assert list(Favorite.objects.values_list("id", flat=True)) == [first.id]


def test_favorite_add_turns_a_racing_duplicate_into_a_conflict(customer, monkeypatch):
    # given a duplicate the check cannot see, as when another request inserts it meanwhile
    listing = ListingFactory()
    FavoriteFactory(user=customer, property=listing)
    before = favorite_rows()
    monkeypatch.setattr("django.db.models.QuerySet.exists", lambda queryset: False)

    # when
    with pytest.raises(Conflict):
        services.favorite_add(user=customer, property=listing, by=customer)

    # then the database's unique constraint refused it, and the session is still usable
    assert favorite_rows() == before


def test_favorite_remove_refuses_anyone_but_the_user_and_admins(customer, other_customer):
    # given
    favorite = FavoriteFactory(user=customer)
    before = favorite_rows()

    # when
    with pytest.raises(PermissionRefused):
        services.favorite_remove(favorite=favorite, by=other_customer)

    # then
    assert favorite_rows() == before


def test_favorite_remove_for_refuses_another_user(customer, other_customer):
    # given
    favorite = FavoriteFactory(user=customer)
    before = favorite_rows()

    # when
    with pytest.raises(PermissionRefused) as raised:
        services.favorite_remove_for(user=customer, property=favorite.property, by=other_customer)

    # then
    assert raised.value.field == "userId"
    assert favorite_rows() == before


def test_favorite_remove_for_without_a_favorite_is_not_found(customer, admin):
    # given
    listing = ListingFactory()

    # when / then
    with pytest.raises(NotFound):
        services.favorite_remove_for(user=customer, property=listing, by=admin)


def test_favorite_add_refuses_to_save_for_someone_else(customer, other_customer):
    # given a public listing
    listing = ListingFactory()

    # when / then
    with pytest.raises(PermissionRefused):
        services.favorite_add(user=customer, property=listing, by=other_customer)
    assert Favorite.objects.count() == 0
