"""In-app notifications, saved searches (alerts), email preferences and webhook registrations."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from config.models import IdField, TimestampedModel
from listings.models import Property


class NotificationStatus(models.TextChoices):
    SUCCESS = "SUCCESS", _("Success")
    ERROR = "ERROR", _("Error")
    WARNING = "WARNING", _("Warning")
    INFO = "INFO", _("Info")


class Notification(models.Model):
    """A message to one user about a property; `status` is a label, `read` a flag."""

    id = IdField()
    status = models.CharField(
        max_length=7, choices=NotificationStatus.choices, default=NotificationStatus.SUCCESS
    )
    title = models.CharField(max_length=200)
    message = models.TextField(max_length=5000)
    read = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    property = models.ForeignKey(Property, on_delete=models.CASCADE, related_name="notifications")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=NotificationStatus.values),
                name="notifications_status_valid",
            )
        ]
        indexes = [
            models.Index(fields=["user", "-created_at"], name="notifications_user_created_idx"),
            models.Index(fields=["user", "read"], name="notifications_user_read_idx"),
        ]

    def __str__(self) -> str:
        return self.title


class AlertFrequency(models.TextChoices):
    """How often a saved search's new matches are sent: at once, in a digest, or not."""

    INSTANT = "INSTANT", _("As they appear")
    DAILY = "DAILY", _("Daily digest")
    WEEKLY = "WEEKLY", _("Weekly digest")
    PAUSED = "PAUSED", _("Paused")


# A saved search's kind and transaction as keys of the matching's indexes: "" where it asks
# for any, so that "any" and the listing's value are two values an index probes
# (notifications.matching).
KIND_KEY = Coalesce(F("kind"), Value(""))
TRANSACTION_KEY = Coalesce(F("transaction_type"), Value(""))


class SavedSearch(TimestampedModel):
    """A user's search kept to be alerted of its new matches.

    `criteria` are the search's parameters as GET /properties reads them (camelCase names,
    string values; paging and `sort` aside), as notifications.services.saved_search_criteria
    cleaned them.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_searches"
    )
    name = models.CharField(max_length=100)
    criteria = models.JSONField(default=dict)
    frequency = models.CharField(
        max_length=7, choices=AlertFrequency.choices, default=AlertFrequency.DAILY
    )
    # The criteria as columns, which the matching of a new listing reads from indexes
    # (notifications.matching, which also writes them): the town (lowercased), the kind,
    # the transaction, the price range, the bedrooms and the bounding box of the map area,
    # each None where the criteria say nothing of it; a circle's center and radius, and a
    # drawn area as PostgreSQL's polygon type reads it. `checked_on_listing`: the criteria
    # hold more (words that are not plain, areas of floor, a category, ...), checked on the
    # listing.
    town = models.CharField(max_length=120, null=True, editable=False)
    kind = models.CharField(max_length=11, null=True, editable=False)
    transaction_type = models.CharField(max_length=4, null=True, editable=False)
    min_price = models.DecimalField(max_digits=14, decimal_places=2, null=True, editable=False)
    max_price = models.DecimalField(max_digits=14, decimal_places=2, null=True, editable=False)
    min_bedrooms = models.PositiveIntegerField(null=True, editable=False)
    area_west = models.FloatField(null=True, editable=False)
    area_south = models.FloatField(null=True, editable=False)
    area_east = models.FloatField(null=True, editable=False)
    area_north = models.FloatField(null=True, editable=False)
    circle_latitude = models.FloatField(null=True, editable=False)
    circle_longitude = models.FloatField(null=True, editable=False)
    circle_radius_km = models.FloatField(null=True, editable=False)
    polygon = models.TextField(null=True, editable=False)
    # The words of a plain `q` (letters and digits only, no operator), folded as the text
    # search folds them, sorted, space-separated: PostgreSQL finds the searches of a
    # listing's words from a btree of the first word (migration 0009); None for no `q`, or
    # one that is not plain (checked).
    words = models.TextField(null=True, editable=False)
    checked_on_listing = models.BooleanField(default=False, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = _("saved searches")
        constraints = [
            models.CheckConstraint(
                condition=Q(frequency__in=AlertFrequency.values),
                name="notifications_saved_search_frequency_valid",
            )
        ]
        indexes = [
            models.Index(fields=["user", "-created_at"], name="notifications_saved_user_idx"),
            # The matching's searches of a town (notifications.matching), and of no town, map
            # area nor words; those of a map area and those of words alone are in a GiST and
            # a btree index (migrations 0005 and 0009).
            models.Index(
                F("town"),
                TRANSACTION_KEY,
                KIND_KEY,
                condition=Q(town__isnull=False) & ~Q(frequency=AlertFrequency.PAUSED),
                name="notifications_saved_town_idx",
            ),
            models.Index(
                TRANSACTION_KEY,
                KIND_KEY,
                condition=Q(town__isnull=True, area_west__isnull=True, words__isnull=True)
                & ~Q(frequency=AlertFrequency.PAUSED),
                name="notifications_saved_rest_idx",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Alert(models.Model):
    """A listing found for a saved search: made once per (search, listing), however often
    the listing appears or races to appear (notifications.alerts).

    `digest_due`: the search sends digests and this alert waits for the next one.
    """

    id = IdField()
    saved_search = models.ForeignKey(SavedSearch, on_delete=models.CASCADE, related_name="alerts")
    property = models.ForeignKey(Property, on_delete=models.CASCADE, related_name="alerts")
    created_at = models.DateTimeField(default=timezone.now)
    digest_due = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["saved_search", "property"], name="notifications_alert_once"
            )
        ]
        indexes = [
            # The alerts a digest collects: few wait at any time among all ever made.
            models.Index(
                fields=["created_at"],
                condition=Q(digest_due=True),
                name="notifications_alert_due_idx",
            ),
            models.Index(fields=["property"], name="notifications_alert_prop_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.saved_search_id} {self.property_id}"


class AlertDigest(models.Model):
    """One sending of the daily or the weekly alert digests, due at a set time.

    The worker schedules them itself (notifications.alerts): an alert that waits for a
    digest makes sure the next one of its frequency exists, as a row and a task to run at
    `due_at`; `sent_at` is set when that task took the waiting alerts.
    """

    id = IdField()
    frequency = models.CharField(max_length=7, choices=AlertFrequency.choices)
    due_at = models.DateTimeField()
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-due_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["frequency", "due_at"], name="notifications_alert_digest_once"
            ),
            models.CheckConstraint(
                condition=Q(frequency__in=[AlertFrequency.DAILY, AlertFrequency.WEEKLY]),
                name="notifications_alert_digest_frequency_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.frequency} {self.due_at:%Y-%m-%d %H:%M}"


class EmailTopic(models.TextChoices):
    """What an email that users may stop is about; each is switched on or off per user."""

    ALERTS = "alerts", _("New listings for your saved searches, and price drops of your favorites")
    VISITS = "visits", _("Visits: requested, confirmed, cancelled or rescheduled")
    LISTINGS = "listings", _("Your listings: approved or suspended")


class EmailPreferences(models.Model):
    """Which topics' emails a user wants (EmailTopic: one field each). A user without a row
    wants them all (notifications.selectors.email_preferences_of)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="email_preferences",
    )
    alerts = models.BooleanField(default=True)
    visits = models.BooleanField(default=True)
    listings = models.BooleanField(default=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = _("email preferences")

    def __str__(self) -> str:
        wanted = [topic.value for topic in EmailTopic if getattr(self, topic.value)]
        return ", ".join(wanted) or "no email"


class WebhookEndpoint(TimestampedModel):
    """A third party's URL that receives signed event deliveries (decisions D12)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhook_endpoints"
    )
    url = models.URLField(max_length=2000)
    # Event names, or ["*"] for all of them.
    events = models.JSONField(default=list)
    # Kept in clear because every delivery is signed with it; never shown after registration.
    secret = models.CharField(max_length=200)
    active = models.BooleanField(default=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.url


class EventType(models.TextChoices):
    """The events of D12; a webhook subscribes to some of them, or to all with "*"."""

    PROPERTY_CREATED = "property.created", "Listing created"
    PROPERTY_UPDATED = "property.updated", "Listing updated"
    PROPERTY_STATUS_CHANGED = "property.status_changed", "Listing status changed"
    PROPERTY_DELETED = "property.deleted", "Listing deleted"
    APPOINTMENT_CREATED = "appointment.created", "Visit requested"
    APPOINTMENT_CONFIRMED = "appointment.confirmed", "Visit confirmed"
    APPOINTMENT_CANCELLED = "appointment.cancelled", "Visit cancelled"
    APPOINTMENT_COMPLETED = "appointment.completed", "Visit completed"
    APPOINTMENT_RESCHEDULED = "appointment.rescheduled", "Visit rescheduled"
    FAVORITE_CREATED = "favorite.created", "Favorite saved"
    NOTIFICATION_CREATED = "notification.created", "Notification sent"
    PROPERTY_PRICE_DROPPED = "property.price_dropped", "Listing's price dropped"
    SEARCH_MATCHED = "search.matched", "Saved search matched"


# In a webhook's `events`, this stands for every event type.
ALL_EVENTS = "*"


class Event(models.Model):
    """Something that happened on the platform, written in the transaction of the change.

    The outbox of D12: the service that makes a change records its event (and the webhook
    deliveries it causes) in the same transaction, so a rolled-back change leaves no event
    and a committed one cannot lose it. `payload` is the resource as the API shows it.
    The event keeps no foreign key to the listing, so property.deleted outlives it.
    """

    id = IdField()
    type = models.CharField(max_length=40, choices=EventType.choices)
    payload = models.JSONField()
    occurred_at = models.DateTimeField(default=timezone.now)
    # The listing the event is about (its id only: the listing may be gone).
    listing_id = models.CharField(max_length=25, blank=True, default="")
    # Who may receive it besides admins (D7): the listing owner's user and, for
    # appointments, the customer, or for notification.created, the recipient alone.
    owner_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    participant = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["-occurred_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(type__in=EventType.values), name="notifications_event_type_valid"
            )
        ]
        indexes = [
            models.Index(fields=["-occurred_at", "-id"], name="notifications_event_time_idx")
        ]

    def __str__(self) -> str:
        return f"{self.type} {self.id}"

    def audience(self) -> set[str]:
        """Ids of the users whose own webhooks receive this event (admins' receive all)."""
        return {user_id for user_id in (self.owner_user_id, self.participant_id) if user_id}


class DeliveryStatus(models.TextChoices):
    """Where a delivery stands: waiting for its next attempt, or done either way."""

    PENDING = "pending", _("Pending")
    SUCCEEDED = "succeeded", _("Succeeded")
    FAILED = "failed", _("Failed")


class DeliveryErrorKind(models.TextChoices):
    """Why an attempt failed; never the receiver's words (its response body is not kept)."""

    TIMEOUT = "timeout", _("Timed out")
    DNS_ERROR = "dns_error", _("Host name did not resolve")
    CONNECTION_ERROR = "connection_error", _("Connection failed")
    TLS_ERROR = "tls_error", _("TLS handshake or certificate failed")
    REDIRECT = "redirect", _("Redirect (not followed)")
    HTTP_ERROR = "http_error", _("Non-2xx status")
    BLOCKED_TARGET = "blocked_target", _("Target refused (private or non-https address)")
    ENDPOINT_DISABLED = "endpoint_disabled", _("Endpoint disabled")


class WebhookDelivery(TimestampedModel):
    """One event on its way to one endpoint: pending until a 2xx, or failed for good.

    Created with its event, in the same transaction. `next_attempt_at` is when the next
    attempt is due (a worker taking it moves it forward by the attempt lease); it is null
    once the delivery succeeded or failed.
    """

    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries"
    )
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(
        max_length=9, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(
        max_length=20, choices=DeliveryErrorKind.choices, null=True, blank=True
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = _("webhook deliveries")
        constraints = [
            models.UniqueConstraint(
                fields=["endpoint", "event"], name="notifications_delivery_once_per_endpoint"
            ),
            models.CheckConstraint(
                condition=Q(status__in=DeliveryStatus.values),
                name="notifications_delivery_status_valid",
            ),
        ]
        indexes = [
            # The sweep: pending deliveries by the time they are due.
            models.Index(
                fields=["status", "next_attempt_at"], name="notifications_delivery_due_idx"
            ),
            # GET /notifications/webhooks/:id/deliveries, newest first.
            models.Index(
                fields=["endpoint", "-created_at", "-id"], name="notifications_endpoint_log_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event_id} to {self.endpoint_id}"


class WebhookAttempt(models.Model):
    """One HTTP attempt of a delivery: when, the status code, how long, and why it failed.

    The receiver's response body is never stored, so it can never be shown back (D12).
    """

    id = IdField()
    delivery = models.ForeignKey(
        WebhookDelivery, on_delete=models.CASCADE, related_name="attempt_log"
    )
    attempted_at = models.DateTimeField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField()
    error_kind = models.CharField(
        max_length=20, choices=DeliveryErrorKind.choices, null=True, blank=True
    )

    class Meta:
        ordering = ["attempted_at", "id"]
        indexes = [
            models.Index(fields=["delivery", "attempted_at"], name="notifications_attempt_idx")
        ]

    def __str__(self) -> str:
        return f"{self.delivery_id} at {self.attempted_at:%Y-%m-%d %H:%M:%S}"
