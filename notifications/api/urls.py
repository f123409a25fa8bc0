from django.urls import re_path

from config.api.routers import OptionalSlashRouter
from notifications.api.views import NotificationViewSet, SavedSearchViewSet, WebhookViewSet

# The router puts collection-level actions (mark-all-read, bulk) before the detail route, and
# ids never contain a hyphen, so PATCH /notifications/mark-all-read never reaches the detail.
router = OptionalSlashRouter()
router.register("notifications", NotificationViewSet, basename="notifications")
router.register("saved-searches", SavedSearchViewSet, basename="saved-searches")

# "webhooks" would match the notification detail route (/notifications/<id>), so the
# webhook routes come first.
webhook_router = OptionalSlashRouter()
webhook_router.register("notifications/webhooks", WebhookViewSet, basename="webhooks")

urlpatterns = [
    # The interface's path is singular (/notifications/webhook/register); it takes POST only.
    re_path(
        r"^notifications/webhook/register/?$",
        WebhookViewSet.as_view({"post": "register"}),
        name="webhooks-register",
    ),
    *webhook_router.urls,
    *router.urls,
]
