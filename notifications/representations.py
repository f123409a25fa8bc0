"""A notification as the API shows it, built by the domain for the notification.created
event (D12): JSON types only; the API's NotificationDetailSerializer gives the same shape (a
test holds them equal)."""

from config.json import json_value, local_time
from listings.representations import property_image_summaries
from notifications.models import Notification


def notification_representations(notifications: list[Notification]) -> list[dict]:
    """Each notification as GET /notifications/:id answers it; the photos of a listing that
    several of them name are read once."""
    photos: dict[str, list[dict]] = {}
    items = []
    for notification in notifications:
        listing = notification.property
        if listing.pk not in photos:
            photos[listing.pk] = property_image_summaries(listing.pk)
        items.append(
            {
                "id": notification.pk,
                "status": notification.status,
                "title": notification.title,
                "message": notification.message,
                "read": notification.read,
                "createdAt": local_time(notification.created_at),
                "propertyId": notification.property_id,
                "userId": notification.user_id,
                "property": {
                    "id": listing.pk,
                    "title": listing.title,
                    "type": listing.kind,
                    "price": listing.price,
                    "transactionType": listing.transaction_type,
                    "images": photos[listing.pk],
                },
                "user": {
                    "id": notification.user_id,
                    "name": notification.user.name,
                    "email": notification.user.email,
                },
            }
        )
    return json_value(items)
