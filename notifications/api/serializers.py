"""Shapes of the notifications endpoints. Field names are snake_case here, camelCase on the wire."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.models import User
from config.api.fields import IdField, IdReferenceField
from listings.api.schema import search_criteria_schema
from listings.api.serializers import (
    DecimalNumberField,
    ImageSummarySerializer,
    PropertyTypeField,
    image_summaries,
    request_origin,
)
from listings.models import Property
from notifications.models import (
    ALL_EVENTS,
    AlertFrequency,
    EmailTopic,
    EventType,
    Notification,
    NotificationStatus,
    SavedSearch,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
)
from notifications.selectors import NOTIFICATION_COLUMNS
from notifications.services import SAVED_SEARCH_NAME_MAX_LENGTH, UNSAVED_PARAMETERS

# POST /notifications/bulk: at most this many recipients per call.
BULK_MAX_USERS = 1000
# How many unknown ids an error message names before it only counts the rest.
UNKNOWN_IDS_SHOWN = 10


class NotificationPropertySerializer(serializers.ModelSerializer):
    """The listing in a list item: id, title, type, photos [{id, url}]."""

    type = PropertyTypeField()
    images = ImageSummarySerializer(many=True, read_only=True)

    class Meta:
        model = Property
        fields = ["id", "title", "type", "images"]
        read_only_fields = fields


class NotificationPropertyDetailSerializer(serializers.ModelSerializer):
    """The listing in the detail: id, title, type, price, transactionType, photos [{id, url}]."""

    type = PropertyTypeField()
    price = DecimalNumberField(max_digits=14, decimal_places=2, read_only=True)
    images = ImageSummarySerializer(many=True, read_only=True)

    class Meta:
        model = Property
        fields = ["id", "title", "type", "price", "transaction_type", "images"]
        read_only_fields = fields


class NotificationUserSerializer(serializers.ModelSerializer):
    """The recipient in the detail: id, name, email."""

    class Meta:
        model = User
        fields = ["id", "name", "email"]
        read_only_fields = fields


class NotificationSerializer(serializers.ModelSerializer):
    """A list item: the notification with `property {id, title, images}`."""

    property_id = serializers.CharField(read_only=True)
    user_id = serializers.CharField(read_only=True)
    property = NotificationPropertySerializer(read_only=True)

    class Meta:
        model = Notification
        # The columns a list page reads (notifications.selectors), and the listing.
        fields = [*NOTIFICATION_COLUMNS, "property"]
        read_only_fields = fields


def notification_items(rows: list[dict], *, request) -> list[dict]:
    """GET /notifications items from the rows of notifications.selectors.notification_list_page,
    keys already camelCase: the same shape as NotificationSerializer (a test holds them equal),
    for config.api.renderers.CamelCasedJSONRenderer."""
    origin = request_origin(request)
    return [
        {
            "id": row["id"],
            "status": row["status"],
            "title": row["title"],
            "message": row["message"],
            "read": row["read"],
            "createdAt": row["created_at"],
            "propertyId": row["property_id"],
            "userId": row["user_id"],
            "property": {
                "id": row["property_id"],
                "title": row["property_title"],
                "type": row["property_kind"],
                "images": image_summaries(row["images"], origin),
            },
        }
        for row in rows
    ]


class NotificationDetailSerializer(NotificationSerializer):
    """The detail (and every write's answer): `property` with price and type, and `user`."""

    property = NotificationPropertyDetailSerializer(read_only=True)
    user = NotificationUserSerializer(read_only=True)

    class Meta(NotificationSerializer.Meta):
        fields = [*NotificationSerializer.Meta.fields, "user"]
        read_only_fields = fields


class _NotificationContentSerializer(serializers.Serializer):
    """What one notification says and what it is about (POST /notifications and /bulk)."""

    status = serializers.ChoiceField(
        choices=NotificationStatus.choices, default=NotificationStatus.SUCCESS
    )
    title = serializers.CharField(min_length=1, max_length=200)
    message = serializers.CharField(min_length=1, max_length=5000)
    property_id = IdReferenceField(queryset=Property.objects.all())


class NotificationCreateSerializer(_NotificationContentSerializer):
    """Body of POST /notifications: the content and the recipient `userId`."""

    user_id = IdReferenceField(queryset=User.objects.all())


class NotificationBulkCreateSerializer(_NotificationContentSerializer):
    """Body of POST /notifications/bulk: the content and `userIds` (1..1000, repeats collapse)."""

    user_ids = serializers.ListField(
        child=IdField(),
        allow_empty=False,
        max_length=BULK_MAX_USERS,
    )

    def validate_user_ids(self, user_ids: list[str]) -> list[User]:
        """The named users, in the order first named (repeats collapse), found in one query."""
        wanted = list(dict.fromkeys(user_ids))
        users = User.objects.in_bulk(wanted)
        unknown = [user_id for user_id in wanted if user_id not in users]
        if unknown:
            shown = ", ".join(unknown[:UNKNOWN_IDS_SHOWN])
            more = len(unknown) - UNKNOWN_IDS_SHOWN
            suffix = f" and {more} more" if more > 0 else ""
            raise serializers.ValidationError(f"No user has these ids: {shown}{suffix}.")
        return [users[user_id] for user_id in wanted]


class NotificationBulkResultSerializer(serializers.Serializer):
    """Answer of POST /notifications/bulk: `{count, notifications}` (D4)."""

    count = serializers.IntegerField()
    notifications = NotificationDetailSerializer(many=True)


class StrictBooleanField(serializers.BooleanField):
    """A JSON true or false; strings such as "yes" or "1" are refused."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class NotificationReadSerializer(serializers.Serializer):
    """Body of PATCH /notifications/:id: `read`, true or false (the one field that changes)."""

    # `read` is required even though the method is PATCH (config.api.schema.AutoSchema).
    required_on_patch = True

    read = StrictBooleanField()


class MarkAllReadSerializer(serializers.Serializer):
    """Body of PATCH /notifications/mark-all-read: `userId`, the caller by default."""

    user_id = IdField(required=False)


class MarkAllReadResultSerializer(serializers.Serializer):
    """Answer of PATCH /notifications/mark-all-read: `{updated}`, how many became read (D4)."""

    updated = serializers.IntegerField()


# --- Webhooks (decisions D12) ---------------------------------------------------------------


@extend_schema_field({"type": "string", "enum": [*EventType.values, ALL_EVENTS]})
class EventNameField(serializers.CharField):
    """An event name or "*"; the schema lists them, the service checks them (one message)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 40)
        super().__init__(**kwargs)


class WebhookRegisterSerializer(serializers.Serializer):
    """Body of POST /notifications/webhook/register: url, events, secret (optional)."""

    url = serializers.URLField(max_length=2000)
    events = serializers.ListField(child=EventNameField(), allow_empty=False, max_length=50)
    # Kept exactly as sent (no trimming): it is the signing key.
    secret = serializers.CharField(
        required=False, trim_whitespace=False, min_length=1, max_length=200
    )


class WebhookEndpointSerializer(serializers.ModelSerializer):
    """A webhook in GET answers: `{id, url, events, active, createdAt, userId}`, no secret."""

    events = serializers.ListField(child=serializers.CharField())
    user_id = serializers.CharField(read_only=True)

    class Meta:
        model = WebhookEndpoint
        fields = ["id", "url", "events", "active", "created_at", "user_id"]
        read_only_fields = fields


class WebhookRegistrationSerializer(serializers.ModelSerializer):
    """Answer of the registration (D12): `{id, url, events, active, createdAt, secret}`.

    The only answer that ever shows the secret.
    """

    events = serializers.ListField(child=serializers.CharField())

    class Meta:
        model = WebhookEndpoint
        fields = ["id", "url", "events", "active", "created_at", "secret"]
        read_only_fields = fields


class WebhookAttemptSerializer(serializers.ModelSerializer):
    """One attempt: when, the status code (null without an answer), how long, why it failed."""

    class Meta:
        model = WebhookAttempt
        fields = ["attempted_at", "status_code", "duration_ms", "error_kind"]
        read_only_fields = fields


class WebhookDeliverySerializer(serializers.ModelSerializer):
    """A delivery of one event to the endpoint, with its attempt log; never a response body."""

    event_id = serializers.CharField(read_only=True)
    event_type = serializers.ChoiceField(
        source="event.type", choices=EventType.choices, read_only=True
    )
    attempt_log = WebhookAttemptSerializer(many=True, read_only=True)

    class Meta:
        model = WebhookDelivery
        fields = [
            "id",
            "event_id",
            "event_type",
            "status",
            "attempts",
            "next_attempt_at",
            "last_status_code",
            "last_error",
            "created_at",
            "updated_at",
            "attempt_log",
        ]
        read_only_fields = fields


CRITERIA_HELP = (
    "GET /properties' query parameters and their values (strings or numbers), `sort` and"
    ' paging aside: for example {"municipality": "Madrid", "maxPrice": 300000}.'
)


class SavedSearchSerializer(serializers.ModelSerializer):
    """A saved search: `{id, userId, name, criteria, frequency, createdAt, updatedAt}`;
    `criteria` as cleaned, every value a string."""

    user_id = serializers.CharField(read_only=True)
    criteria = serializers.DictField(child=serializers.CharField(), read_only=True)

    class Meta:
        model = SavedSearch
        fields = ["id", "user_id", "name", "criteria", "frequency", "created_at", "updated_at"]
        read_only_fields = fields


@extend_schema_field(search_criteria_schema(leaving_out=UNSAVED_PARAMETERS))
class SearchCriteriaField(serializers.DictField):
    """A saved search's criteria in a request: an object of search parameters, whose rules
    notifications.services.saved_search_criteria checks (the schema shows them)."""


class SavedSearchWriteSerializer(serializers.Serializer):
    """Body of POST /saved-searches (name and criteria required) and of PATCH (any of them).
    The criteria's own rules are notifications.services.saved_search_criteria's."""

    name = serializers.CharField(max_length=SAVED_SEARCH_NAME_MAX_LENGTH)
    criteria = SearchCriteriaField(help_text=CRITERIA_HELP)
    frequency = serializers.ChoiceField(
        choices=AlertFrequency.choices,
        required=False,
        help_text="How often new matches are sent; DAILY when not given.",
    )


class EmailPreferencesSerializer(serializers.Serializer):
    """A user's email preferences: which topics' emails they want (EmailTopic), and whether
    their address is confirmed (no alert goes to an unconfirmed one; docs/email.md)."""

    alerts = StrictBooleanField(help_text=EmailTopic.ALERTS.label)
    visits = StrictBooleanField(help_text=EmailTopic.VISITS.label)
    listings = StrictBooleanField(help_text=EmailTopic.LISTINGS.label)
    email_confirmed = serializers.BooleanField(read_only=True)


def email_preferences_item(preferences) -> dict:
    """GET and PATCH /notifications/email-preferences's answer."""
    return {
        **{topic.value: getattr(preferences, topic.value) for topic in EmailTopic},
        "email_confirmed": preferences.user.email_verified is not None,
    }
