"""Reads of accounts."""

from django.db.models import Prefetch, QuerySet
from django.utils import timezone

from accounts.models import AccessToken, Owner, User, UserType
from accounts.tokens import token_hash
from config.errors import PermissionRefused
from listings.models import Property


def is_admin(user) -> bool:
    """Whether the user (anonymous visitors included) is an administrator (D7)."""
    return bool(user and user.is_authenticated and user.user_type == UserType.ADMIN)


def user_id_named(*, viewer: User, user_id: str | None, refusal: str) -> str:
    """The id of the user a request is about: `user_id` when it names one, else the viewer.

    Naming another user is for admins (D7); anyone else is refused with `refusal` as a 403
    permission_denied on `userId` (docs/api.md), before the id is looked up, so the answer
    never tells whether that user exists. Every `userId` of the API is checked here.
    """
    if not user_id or user_id == viewer.pk:
        return viewer.pk
    if not is_admin(viewer):
        raise PermissionRefused(refusal, field="userId")
    return user_id


def access_token_find(*, token: str) -> AccessToken | None:
    """The live token matching `token`, with its user, or None when unknown or expired."""
    return (
        AccessToken.objects.select_related("user")
        .filter(key_hash=token_hash(token), expires_at__gt=timezone.now(), user__is_active=True)
        .first()
    )


def user_list(*, viewer: User) -> QuerySet[User]:
    """Users the viewer may see: everyone for an admin, only themselves otherwise (D7)."""
    users = User.objects.order_by("-created_at", "-id")
    if viewer.is_authenticated and viewer.is_admin:
        return users
    if viewer.is_authenticated:
        return users.filter(pk=viewer.pk)
    return users.none()


def user_detail_queryset(*, viewer: User) -> QuerySet[User]:
    """Users with what the detail shape shows: the Owner record and its listings' ids, titles
    and types."""
    return user_list(viewer=viewer).prefetch_related(
        Prefetch(
            "owner",
            queryset=Owner.objects.prefetch_related(
                Prefetch(
                    "properties",
                    queryset=Property.objects.only("id", "title", "kind", "owner_id").order_by(
                        "-created_at", "-id"
                    ),
                )
            ),
        )
    )
