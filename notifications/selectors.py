"""Reads of notifications: who sees which (D7) and how each read loads its data, in one place."""

from collections.abc import Iterable

from django.db.models import F, Prefetch, QuerySet, prefetch_related_objects
from django.utils.translation import gettext_lazy

from accounts.models import User
from accounts.selectors import is_admin, user_id_named
from listings.models import Property
from listings.selectors import gallery_files
from media_app.models import Image
from notifications.models import (
    EmailPreferences,
    Notification,
    SavedSearch,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
)

NEWEST_FIRST = ("-created_at", "-id")


def _ordered_photos() -> QuerySet[Image]:
    return Image.objects.order_by("position", "created_at", "id").only("id", "file", "property_id")


def _photos() -> Prefetch:
    return Prefetch("property__images", queryset=_ordered_photos())


def notification_visible_to(*, viewer: User) -> QuerySet[Notification]:
    """Notifications the viewer may read, mark and delete: their own, every one for an admin."""
    notifications = Notification.objects.all()
    if is_admin(viewer):
        return notifications
    if not viewer.is_authenticated:
        return notifications.none()
    return notifications.filter(user_id=viewer.pk)


def notification_list(*, viewer: User, user_id: str | None = None) -> QuerySet[Notification]:
    """One user's notifications, newest first: the viewer's own unless `user_id` names another.

    Naming another user is for admins; anyone else gets 403 (D7). An admin who names nobody
    gets their own notifications too, like everyone else.
    """
    user_id = user_id_named(
        viewer=viewer,
        user_id=user_id,
        refusal=gettext_lazy("You may list only your own notifications."),
    )
    return Notification.objects.filter(user_id=user_id).order_by(*NEWEST_FIRST)


# The columns of a list item (GET /notifications): the notification's, then its listing's title.
NOTIFICATION_COLUMNS = (
    "id",
    "status",
    "title",
    "message",
    "read",
    "created_at",
    "property_id",
    "user_id",
)


def notification_list_loading(notifications: QuerySet[Notification]) -> QuerySet[Notification]:
    """What a list item shows: the listing's id and title (one join) and its photos (one query)."""
    listing_columns = ("property__id", "property__title", "property__slug", "property__kind")
    return (
        notifications.select_related("property")
        .only(*NOTIFICATION_COLUMNS, *listing_columns)
        .prefetch_related(_photos())
    )


def notification_list_page(
    notifications: QuerySet[Notification], *, offset: int, limit: int
) -> list[dict]:
    """One page of notifications as plain rows with their listing's title and `images` [(id,
    file name)] in gallery order: two queries, no model instances (GET /notifications; shaped
    by notifications.api.serializers.notification_items, as the listings' pages are)."""
    page = notifications[offset : offset + limit]
    rows = list(
        page.values(
            *NOTIFICATION_COLUMNS,
            property_title=F("property__title"),
            property_kind=F("property__kind"),
        )
    )
    photos = gallery_files(row["property_id"] for row in rows)
    for row in rows:
        row["images"] = photos[row["property_id"]]
    return rows


def notification_detail_loading(notifications: QuerySet[Notification]) -> QuerySet[Notification]:
    """What the detail shows: the listing and the recipient (one query) and the photos (one)."""
    return notifications.select_related("property", "user").prefetch_related(_photos())


def notification_property_loading(property: Property) -> Property:
    """A listing with its photos (one query), shared by every notification of a bulk send."""
    prefetch_related_objects([property], Prefetch("images", queryset=_ordered_photos()))
    return property


def webhook_visible_to(*, viewer: User) -> QuerySet[WebhookEndpoint]:
    """Webhook endpoints the viewer may read and delete: their own, every one for an admin (D7).

    Newest first. Anyone else's answer 404, so their ids are not disclosed.
    """
    endpoints = WebhookEndpoint.objects.order_by(*NEWEST_FIRST)
    if is_admin(viewer):
        return endpoints
    if not viewer.is_authenticated:
        return endpoints.none()
    return endpoints.filter(user_id=viewer.pk)


def delivery_list(*, endpoint: WebhookEndpoint) -> QuerySet[WebhookDelivery]:
    """An endpoint's deliveries, newest first, each with its event type and attempt log.

    The event comes in one join (without its payload), the attempts, in time order, in one
    query for the whole page.
    """
    attempts = WebhookAttempt.objects.order_by("attempted_at", "id")
    return (
        WebhookDelivery.objects.filter(endpoint=endpoint)
        .select_related("event")
        .defer("event__payload")
        .prefetch_related(Prefetch("attempt_log", queryset=attempts))
        .order_by(*NEWEST_FIRST)
    )


def saved_search_visible_to(*, viewer: User) -> QuerySet[SavedSearch]:
    """Saved searches the viewer may read, newest first: their own, every one for an admin."""
    saved_searches = SavedSearch.objects.order_by(*NEWEST_FIRST)
    if is_admin(viewer):
        return saved_searches
    if not viewer.is_authenticated:
        return saved_searches.none()
    return saved_searches.filter(user_id=viewer.pk)


def email_recipients(*, users: Iterable[User], topic: str) -> list[User]:
    """Those of `users` who get emails of `topic` (EmailTopic): their address is confirmed
    and they did not switch the topic off. One query, in the order of their ids."""
    ids = {user.pk for user in users}
    if not ids:
        return []
    return list(
        User.objects.filter(pk__in=ids, email_verified__isnull=False)
        .exclude(**{f"email_preferences__{topic}": False})
        .order_by("pk")
    )


def email_preferences_of(*, user: User) -> EmailPreferences:
    """The user's email preferences; every topic on for a user who never changed them (an
    unsaved row with the defaults)."""
    return EmailPreferences.objects.filter(user=user).first() or EmailPreferences(user=user)
