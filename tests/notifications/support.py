"""Shapes, URLs and snapshots shared by the Notifications API tests."""

import datetime

from media_app.models import Image
from notifications.models import Notification

NOTIFICATIONS_URL = "/api/v1/notifications"
BULK_URL = f"{NOTIFICATIONS_URL}/bulk"
MARK_ALL_READ_URL = f"{NOTIFICATIONS_URL}/mark-all-read"
UNKNOWN_ID = "zzzzzzzzzzzzzzzzzzzzzzzzz"

LIST_KEYS = {"data", "pagination"}
PAGINATION_KEYS = {"total", "page", "limit", "pages"}
# A list item (interface: Notification, "List items also expose property").
ITEM_KEYS = {
    "id",
    "status",
    "title",
    "message",
    "read",
    "createdAt",
    "propertyId",
    "userId",
    "property",
}
ITEM_PROPERTY_KEYS = {"id", "title", "type", "images"}
# The detail, and the answer of every write that returns a notification.
DETAIL_KEYS = ITEM_KEYS | {"user"}
DETAIL_PROPERTY_KEYS = {"id", "title", "type", "price", "transactionType", "images"}
DETAIL_USER_KEYS = {"id", "name", "email"}


def notification_url(notification_id: str) -> str:
    """The path of one notification."""
    return f"{NOTIFICATIONS_URL}/{notification_id}"


def iso(moment: datetime.datetime) -> str:
    """A timestamp as the API writes it: ISO 8601 in UTC with Z."""
    return moment.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z")


def image_body(image: Image) -> dict[str, str]:
    """A photo as a notification's listing shows it: id and absolute url."""
    return {"id": image.id, "url": f"http://testserver{image.file.url}"}


def item_body(notification: Notification, images: list[Image] | None = None) -> dict:
    """A notification as a list item must show it, read fresh from the database."""
    notification.refresh_from_db()
    listing = notification.property
    return {
        "id": notification.id,
        "status": notification.status,
        "title": notification.title,
        "message": notification.message,
        "read": notification.read,
        "createdAt": iso(notification.created_at),
        "propertyId": listing.id,
        "userId": notification.user_id,
        "property": {
            "id": listing.id,
            "title": listing.title,
            "type": listing.kind,
            "images": [image_body(image) for image in images or []],
        },
    }


def detail_body(notification: Notification, images: list[Image] | None = None) -> dict:
    """A notification as the detail must show it, read fresh from the database."""
    body = item_body(notification, images)
    listing, user = notification.property, notification.user
    body["property"] = {
        "id": listing.id,
        "title": listing.title,
        "type": listing.kind,
        "price": float(listing.price),
        "transactionType": listing.transaction_type,
        "images": body["property"]["images"],
    }
    body["user"] = {"id": user.id, "name": user.name, "email": user.email}
    return body


def notification_rows() -> list[tuple]:
    """Every notification row, to show that a refused request changed nothing."""
    return list(Notification.objects.order_by("pk").values_list())


def ids(response) -> list[str]:
    """The ids of the notifications of a GET /notifications page, in order."""
    return [item["id"] for item in response.json()["data"]]


def spread_creation_times(*notifications: Notification) -> None:
    """Give the notifications creation times one minute apart, in the order given (oldest first)."""
    start = datetime.datetime.now(tz=datetime.UTC) - datetime.timedelta(days=1)
    for minutes, notification in enumerate(notifications):
        Notification.objects.filter(pk=notification.pk).update(
            created_at=start + datetime.timedelta(minutes=minutes)
        )
        notification.refresh_from_db()
