"""Reads of accounts."""

from django.db.models import Prefetch, QuerySet
from django.utils import timezone

from accounts.models import AccessToken, Owner, User, UserType
from accounts.tokens import token_hash
from listings.models import Property


def is_admin(user) -> bool:
    """Whether the user (anonymous visitors included) is an administrator (D7)."""
    return bool(user and user.is_authenticated and user.user_type == UserType.ADMIN)


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
