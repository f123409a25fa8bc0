"""Back office of notifications, saved searches and webhook endpoints.

Notifications are sent by the platform (and by admins, D7) through notifications.services.
Webhook endpoints are registered through the API, which checks their URL; here they are
listed, paused or resumed, and deleted, and their secret is never shown. Events and webhook
deliveries are read only; a delivery can be retried now. Saved searches are their users':
admins read them.
"""

from django.contrib import admin, messages
from django.contrib.admin import ActionLocation
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from config.admin import ReadOnlyModelAdmin, ServiceModelAdmin, adopt_saved
from config.errors import DomainError
from notifications import services
from notifications.delivery import delivery_retry_now
from notifications.models import (
    Alert,
    AlertDigest,
    EmailPreferences,
    Event,
    Notification,
    SavedSearch,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
)
from notifications.tasks import deliveries_enqueue


@admin.register(EmailPreferences)
class EmailPreferencesAdmin(ReadOnlyModelAdmin):
    """Which topics' emails users want; only they change them (or unsubscribe)."""

    list_display = ["user_email", "alerts", "visits", "listings", "updated_at"]
    list_filter = ["alerts", "visits", "listings"]
    list_select_related = ["user"]
    search_fields = ["user__email"]
    show_full_result_count = False
    fields = ["user", "alerts", "visits", "listings", "updated_at"]

    @admin.display(description=_("user"), ordering="user__email")
    def user_email(self, preferences: EmailPreferences) -> str:
        return preferences.user.email


@admin.register(SavedSearch)
class SavedSearchAdmin(ReadOnlyModelAdmin):
    """Users' saved searches (alerts), by frequency; only their users change them."""

    list_display = ["created_at", "name", "frequency", "user_email"]
    list_filter = ["frequency"]
    list_select_related = ["user"]
    search_fields = ["name", "user__email"]
    date_hierarchy = "created_at"
    show_full_result_count = False
    fields = ["user", "name", "criteria", "frequency", "created_at", "updated_at"]

    @admin.display(description=_("user"), ordering="user__email")
    def user_email(self, saved_search: SavedSearch) -> str:
        return saved_search.user.email


@admin.register(Alert)
class AlertAdmin(ReadOnlyModelAdmin):
    """The listings each saved search was alerted of (notifications.alerts); read only."""

    list_display = ["created_at", "saved_search_name", "user_email", "listing", "digest_due"]
    list_filter = ["digest_due"]
    list_select_related = ["saved_search__user", "property"]
    search_fields = ["saved_search__name", "saved_search__user__email", "property__title"]
    date_hierarchy = "created_at"
    show_full_result_count = False
    fields = ["created_at", "saved_search", "property", "digest_due"]

    @admin.display(description=_("saved search"), ordering="saved_search__name")
    def saved_search_name(self, alert: Alert) -> str:
        return alert.saved_search.name

    @admin.display(description=_("user"), ordering="saved_search__user__email")
    def user_email(self, alert: Alert) -> str:
        return alert.saved_search.user.email

    @admin.display(description=_("listing"), ordering="property__title")
    def listing(self, alert: Alert) -> str:
        return alert.property.title


@admin.register(AlertDigest)
class AlertDigestAdmin(ReadOnlyModelAdmin):
    """The daily and weekly alert digests: when each is due and when it was sent."""

    list_display = ["due_at", "frequency", "sent_at"]
    list_filter = ["frequency"]
    date_hierarchy = "due_at"
    fields = ["frequency", "due_at", "sent_at"]


@admin.register(Notification)
class NotificationAdmin(ServiceModelAdmin):
    """In-app notifications by status and read flag; an admin may send or delete one."""

    list_display = ["created_at", "title", "status", "read", "recipient", "listing"]
    list_filter = ["status", "read"]
    list_select_related = ["property", "user"]
    search_fields = ["title", "user__email", "property__title"]
    date_hierarchy = "created_at"
    show_full_result_count = False
    raw_id_fields = ["property", "user"]
    fields = ["user", "property", "status", "title", "message", "read", "created_at"]

    def get_readonly_fields(self, request, obj=None) -> list[str]:
        # Sent notifications are the recipient's: an admin reads or deletes them.
        return ["read", "created_at"] if obj is None else self.fields

    def has_change_permission(self, request, obj=None) -> bool:
        return obj is None and super().has_change_permission(request, obj)

    @admin.display(description=_("recipient"), ordering="user__email")
    def recipient(self, notification: Notification) -> str:
        return notification.user.email

    @admin.display(description=_("listing"), ordering="property__title")
    def listing(self, notification: Notification) -> str:
        return notification.property.title

    def save_model(self, request, obj, form, change) -> None:
        sent = services.notification_send(
            user=obj.user,
            property=obj.property,
            title=obj.title,
            message=obj.message,
            status=obj.status,
        )
        adopt_saved(obj, sent)

    def delete_model(self, request, obj) -> None:
        services.notification_delete(notification=obj, by=request.user)

    def delete_queryset(self, request, queryset) -> None:
        for notification in queryset:
            services.notification_delete(notification=notification, by=request.user)


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    """Registered webhook endpoints: paused or resumed (`active`) and deleted here.

    The secret is never shown (D12). Endpoints are registered through the API, which checks
    the URL. An endpoint that answered 410 Gone was disabled (`active` off); turning it back
    on resumes its deliveries. Its deliveries are on the webhook deliveries page.
    """

    list_display = ["url", "registrant", "events", "active", "created_at"]
    list_filter = ["active"]
    list_select_related = ["user"]
    search_fields = ["url", "user__email"]
    fields = ["url", "user", "events", "active", "created_at", "updated_at"]
    readonly_fields = ["url", "user", "events", "created_at", "updated_at"]

    def has_add_permission(self, request) -> bool:
        return False

    @admin.display(description=_("registered by"), ordering="user__email")
    def registrant(self, endpoint: WebhookEndpoint) -> str:
        return endpoint.user.email


@admin.register(Event)
class EventAdmin(ReadOnlyModelAdmin):
    """Every event the platform recorded (the outbox of D12), newest first; read only."""

    list_display = ["occurred_at", "type", "listing_id", "owner_user", "participant"]
    list_filter = ["type"]
    list_select_related = ["owner_user", "participant"]
    search_fields = ["id", "listing_id"]
    date_hierarchy = "occurred_at"
    show_full_result_count = False
    fields = ["id", "type", "occurred_at", "listing_id", "owner_user", "participant", "payload"]


class WebhookAttemptInline(admin.TabularInline):
    """The attempt log of a delivery: time, status code, duration, error kind; no body."""

    model = WebhookAttempt
    fields = ["attempted_at", "status_code", "duration_ms", "error_kind"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyModelAdmin):
    """Webhook deliveries, newest first, by status and endpoint, with their attempts.

    Read only, with one action: "Retry now" makes pending or failed deliveries due at once
    and hands them to the worker (notifications.delivery.delivery_retry_now).
    """

    list_display = [
        "created_at",
        "event_type",
        "endpoint_url",
        "status",
        "attempts",
        "last_status_code",
        "last_error",
        "next_attempt_at",
    ]
    list_filter = ["status", "endpoint"]
    list_select_related = ["event", "endpoint"]
    search_fields = ["event__id", "endpoint__url"]
    date_hierarchy = "created_at"
    show_full_result_count = False
    fields = [
        "event",
        "endpoint",
        "status",
        "attempts",
        "next_attempt_at",
        "last_status_code",
        "last_error",
        "created_at",
        "updated_at",
    ]
    inlines = [WebhookAttemptInline]
    actions = ["retry_now"]

    def get_queryset(self, request) -> QuerySet[WebhookDelivery]:
        # The list shows the event's type, never its payload: leave the payload unread.
        return super().get_queryset(request).defer("event__payload")

    @admin.display(description=_("event"), ordering="event__type")
    def event_type(self, delivery: WebhookDelivery) -> str:
        return delivery.event.type

    @admin.display(description=_("endpoint"), ordering="endpoint__url")
    def endpoint_url(self, delivery: WebhookDelivery) -> str:
        return delivery.endpoint.url

    def has_retry_permission(self, request) -> bool:
        # Everyone in the back office is an admin, who may do everything (D7).
        return self.has_view_permission(request)

    @admin.action(
        description=_("Retry now"),
        permissions=["retry"],
        location=[ActionLocation.CHANGE_LIST, ActionLocation.CHANGE_FORM],
    )
    def retry_now(self, request, queryset) -> None:
        """Make each selected pending or failed delivery due now; succeeded ones are skipped."""
        retried = 0
        for delivery in queryset:
            try:
                delivery_retry_now(delivery=delivery, enqueue=deliveries_enqueue)
            except DomainError as error:
                self.message_user(request, f"{delivery}: {error.detail}", messages.WARNING)
            else:
                retried += 1
        if retried:
            self.message_user(
                request,
                ngettext(
                    "%(count)d delivery will be attempted now by the worker.",
                    "%(count)d deliveries will be attempted now by the worker.",
                    retried,
                )
                % {"count": retried},
                messages.SUCCESS,
            )


@admin.register(WebhookAttempt)
class WebhookAttemptAdmin(ReadOnlyModelAdmin):
    """Every delivery attempt, newest first: the log across endpoints, by error kind."""

    list_display = ["attempted_at", "delivery", "status_code", "duration_ms", "error_kind"]
    list_filter = ["error_kind"]
    list_select_related = ["delivery"]
    search_fields = ["delivery__id", "delivery__event__id"]
    date_hierarchy = "attempted_at"
    show_full_result_count = False
    ordering = ["-attempted_at", "-id"]
    fields = ["delivery", "attempted_at", "status_code", "duration_ms", "error_kind"]
