"""Writes on favorites: every face of the platform (API, website, admin) calls these."""

from django.db import IntegrityError, transaction

from accounts.models import User
from config.errors import Conflict, NotFound, PermissionRefused
from favorites.models import Favorite
from favorites.representations import favorite_representation
from listings.models import Property
from notifications.events import event_record
from notifications.models import EventType

ALREADY_FAVORITE = "This listing is already among the user's favorites."
NO_SUCH_FAVORITE = "This listing is not among the user's favorites."


def favorites_managed_by(*, user_id: str, by: User) -> bool:
    """True when `by` may add and remove the favorites of user `user_id`: they and admins (D7)."""
    return by.is_authenticated and (by.pk == user_id or by.is_admin)


@transaction.atomic
def favorite_add(*, user: User, property: Property, by: User) -> Favorite:
    """Save a listing among the user's favorites; a pair is saved once (409 conflict).

    The user saves their own favorites; admins may save for anyone (D7). Which listings may
    be named is the caller's check (the API accepts only listings the caller can see). Two
    requests racing past the check meet the database's unique constraint: the loser gets
    the same 409. The favorite.created event goes to the listing owner's webhooks (D12).
    """
    if not favorites_managed_by(user_id=user.pk, by=by):
        raise PermissionRefused("You may manage only your own favorites.", field="userId")
    if Favorite.objects.filter(user=user, property=property).exists():
        raise Conflict(ALREADY_FAVORITE, field="propertyId")
    try:
        with transaction.atomic():
            favorite = Favorite.objects.create(user=user, property=property)
    except IntegrityError as error:
        raise Conflict(ALREADY_FAVORITE, field="propertyId") from error
    event_record(
        type=EventType.FAVORITE_CREATED,
        payload=favorite_representation(favorite),
        listing_id=property.pk,
        owner_user_id=property.owner.user_id,
    )
    return favorite


def favorite_remove(*, favorite: Favorite, by: User) -> None:
    """Remove one favorite; the favorite's user and admins may."""
    if not favorites_managed_by(user_id=favorite.user_id, by=by):
        raise PermissionRefused("You may manage only your own favorites.")
    favorite.delete()


def favorite_remove_for(*, user: User, property: Property, by: User) -> None:
    """Remove the user's favorite of a listing (one DELETE); none there is 404 not_found."""
    if not favorites_managed_by(user_id=user.pk, by=by):
        raise PermissionRefused("You may manage only your own favorites.", field="userId")
    deleted, _per_model = Favorite.objects.filter(user=user, property=property).delete()
    if not deleted:
        raise NotFound(NO_SUCH_FAVORITE)
