"""Writes on favorites: every face of the platform (API, website, admin) calls these."""

from django.db import IntegrityError, transaction
from django.utils.translation import gettext_lazy

from accounts.models import User
from accounts.selectors import is_admin, user_id_named
from config.errors import Conflict, NotFound, PermissionRefused
from favorites.models import Favorite
from favorites.representations import favorite_representation
from listings.models import Property
from notifications.events import event_record
from notifications.models import EventType

ALREADY_FAVORITE = gettext_lazy("This listing is already among the user's favorites.")
NO_SUCH_FAVORITE = gettext_lazy("This listing is not among the user's favorites.")


MANAGE_ONLY_YOUR_OWN = gettext_lazy("You may manage only your own favorites.")


@transaction.atomic
def favorite_add(*, user: User, property: Property, by: User) -> Favorite:
    """Save a listing among the user's favorites; a pair is saved once (409 conflict).

    The user saves their own favorites; admins may save for anyone (D7). Which listings may
    be named is the caller's check (the API accepts only listings the caller can see). Two
    requests racing past the check meet the database's unique constraint: the loser gets
    the same 409. The favorite.created event goes to the listing owner's webhooks (D12).
    """
    user_id_named(viewer=by, user_id=user.pk, refusal=MANAGE_ONLY_YOUR_OWN)
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
    if favorite.user_id != by.pk and not is_admin(by):
        raise PermissionRefused(MANAGE_ONLY_YOUR_OWN)
    favorite.delete()


def favorite_remove_for(*, user: User, property: Property, by: User) -> None:
    """Remove the user's favorite of a listing (one DELETE); none there is 404 not_found."""
    user_id_named(viewer=by, user_id=user.pk, refusal=MANAGE_ONLY_YOUR_OWN)
    deleted, _per_model = Favorite.objects.filter(user=user, property=property).delete()
    if not deleted:
        raise NotFound(NO_SUCH_FAVORITE)
