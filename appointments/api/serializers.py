"""Shapes of the appointments endpoints."""

from rest_framework import serializers

from accounts.models import Owner, User
from appointments.models import (
    DEFAULT_DURATION_MINUTES,
    MAX_DURATION_MINUTES,
    MIN_DURATION_MINUTES,
    Appointment,
    AppointmentStatus,
)
from config.api.fields import IdReferenceField
from config.api.json_types import JSONTypedSerializer
from listings.api.serializers import PropertyTypeField
from listings.models import Property


class AppointmentPropertySerializer(serializers.ModelSerializer):
    """The visited listing: id, title, type."""

    type = PropertyTypeField()

    class Meta:
        model = Property
        fields = ["id", "title", "type"]
        read_only_fields = fields


class AppointmentUserSerializer(serializers.ModelSerializer):
    class Meta:
        model = User
        fields = ["id", "name"]
        read_only_fields = fields


class AppointmentOwnerSerializer(serializers.ModelSerializer):
    user_id = serializers.CharField(read_only=True)

    class Meta:
        model = Owner
        fields = ["id", "user_id"]
        read_only_fields = fields


class AppointmentListItemSerializer(serializers.ModelSerializer):
    """A list item: {id, date, duration, status, notes, property, user, owner} (interface)."""

    property = AppointmentPropertySerializer(read_only=True)
    user = AppointmentUserSerializer(read_only=True)
    owner = AppointmentOwnerSerializer(read_only=True)

    class Meta:
        model = Appointment
        fields = ["id", "date", "duration", "status", "notes", "property", "user", "owner"]
        read_only_fields = fields


class AppointmentSerializer(AppointmentListItemSerializer):
    """The whole appointment (answers of POST, PATCH, DELETE and GET /:id)."""

    property_id = serializers.CharField(read_only=True)
    user_id = serializers.CharField(read_only=True)
    owner_id = serializers.CharField(read_only=True)
    admin_id = serializers.CharField(read_only=True, allow_null=True)

    class Meta(AppointmentListItemSerializer.Meta):
        fields = [
            *AppointmentListItemSerializer.Meta.fields,
            "property_id",
            "user_id",
            "owner_id",
            "admin_id",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class AppointmentCreateSerializer(JSONTypedSerializer):
    """Body of POST /appointments; propertyId must be a listing the caller can see."""

    date = serializers.DateTimeField()
    duration = serializers.IntegerField(
        min_value=MIN_DURATION_MINUTES,
        max_value=MAX_DURATION_MINUTES,
        default=DEFAULT_DURATION_MINUTES,
    )
    property_id = IdReferenceField(queryset=Property.objects.none())
    user_id = IdReferenceField(queryset=User.objects.all(), required=False)
    owner_id = IdReferenceField(queryset=Owner.objects.all(), required=False)
    notes = serializers.CharField(
        max_length=2000, required=False, allow_null=True, allow_blank=True
    )

    def __init__(self, *args, properties=None, **kwargs):
        super().__init__(*args, **kwargs)
        if properties is not None:
            self.fields["property_id"].queryset = properties


class AppointmentPatchSerializer(JSONTypedSerializer):
    """Body of PATCH /appointments/:id: any of status, date, duration, notes."""

    status = serializers.ChoiceField(choices=AppointmentStatus.choices, required=False)
    date = serializers.DateTimeField(required=False)
    duration = serializers.IntegerField(
        min_value=MIN_DURATION_MINUTES, max_value=MAX_DURATION_MINUTES, required=False
    )
    notes = serializers.CharField(
        max_length=2000, required=False, allow_null=True, allow_blank=True
    )
