"""Template context for the website's header: the signed-in user's unread notifications."""

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from notifications.selectors import notification_visible_to


def unread_notifications(request: HttpRequest) -> dict[str, object]:
    """`unread_notification_count`: one COUNT query, run only if a template shows it.

    Anonymous visitors cost nothing. The count is lazy so that pages rendered without the
    header (redirects, the 500 page) do not pay for it.
    """
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"unread_notification_count": 0}

    def count() -> int:
        return notification_visible_to(viewer=user).filter(user_id=user.pk, read=False).count()

    return {"unread_notification_count": SimpleLazyObject(count)}
