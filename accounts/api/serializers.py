"""Shapes of the users endpoints. Field names are snake_case here, camelCase on the wire."""

from collections.abc import Mapping

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.models import Owner, User, UserType
from accounts.services import password_check
from config.api.json_types import JSONTypedSerializer
from config.errors import ValidationFailed
from listings.api.serializers import PropertyTypeField
from listings.models import Property


class UserSerializer(serializers.ModelSerializer):
    """The public shape of a user; credential material is never part of it."""

    class Meta:
        model = User
        fields = [
            "id",
            "name",
            "email",
            "phone",
            "user_type",
            "image",
            "language",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class OwnerPropertySerializer(serializers.ModelSerializer):
    """One of an owner's listings: id, title, type."""

    type = PropertyTypeField()

    class Meta:
        model = Property
        fields = ["id", "title", "type"]
        read_only_fields = fields


class OwnerSummarySerializer(serializers.ModelSerializer):
    properties = OwnerPropertySerializer(many=True, read_only=True)

    class Meta:
        model = Owner
        fields = ["id", "properties"]


class UserDetailSerializer(UserSerializer):
    """The detail shape: the user plus, for an owner, `owner` {id, properties [{id, title,
    type}]}."""

    owner = serializers.SerializerMethodField()

    class Meta(UserSerializer.Meta):
        fields = [*UserSerializer.Meta.fields, "owner"]
        read_only_fields = fields

    @extend_schema_field(OwnerSummarySerializer(allow_null=True))
    def get_owner(self, user: User):
        try:
            owner = user.owner
        except Owner.DoesNotExist:
            return None
        return OwnerSummarySerializer(owner).data


class RegisterSerializer(JSONTypedSerializer):
    name = serializers.CharField(max_length=200, required=False, allow_null=True, allow_blank=True)
    email = serializers.EmailField(max_length=254)
    password = serializers.CharField(max_length=128, trim_whitespace=False, write_only=True)
    phone = serializers.CharField(max_length=40, required=False, allow_null=True, allow_blank=True)
    user_type = serializers.ChoiceField(choices=UserType.choices, default=UserType.CUSTOMER)
    # The language of the user's emails; without it, the request's (Accept-Language).
    language = serializers.ChoiceField(choices=settings.LANGUAGES, required=False)

    def validate_password(self, password: str) -> str:
        """Apply the service's password validators as a field check.

        A field check runs even when another field is invalid, so a weak password is
        reported together with, say, a bad email. The similarity check compares against
        the email and name as sent, when they are strings.
        """
        data = self.initial_data if isinstance(self.initial_data, Mapping) else {}
        email, name = data.get("email"), data.get("name")
        candidate = User(
            email=email if isinstance(email, str) else "",
            name=name if isinstance(name, str) else None,
        )
        try:
            password_check(password=password, user=candidate)
        except ValidationFailed as error:
            raise serializers.ValidationError(error.detail) from error
        return password


class LoginSerializer(JSONTypedSerializer):
    email = serializers.EmailField(max_length=254)
    password = serializers.CharField(max_length=128, trim_whitespace=False, write_only=True)


class AuthResultSerializer(serializers.Serializer):
    """Register and login answer: `{token, tokenType, expiresAt, user}` (D4)."""

    token = serializers.CharField()
    token_type = serializers.CharField()
    expires_at = serializers.DateTimeField()
    user = UserSerializer()


class UserUpdateSerializer(JSONTypedSerializer):
    """PATCH /users/:id. email and userType are for admins; password needs currentPassword."""

    name = serializers.CharField(max_length=200, required=False, allow_null=True, allow_blank=True)
    phone = serializers.CharField(max_length=40, required=False, allow_null=True, allow_blank=True)
    image = serializers.URLField(max_length=500, required=False, allow_null=True, allow_blank=True)
    password = serializers.CharField(
        max_length=128, trim_whitespace=False, write_only=True, required=False
    )
    current_password = serializers.CharField(
        max_length=128, trim_whitespace=False, write_only=True, required=False
    )
    email = serializers.EmailField(max_length=254, required=False)
    user_type = serializers.ChoiceField(choices=UserType.choices, required=False)
    language = serializers.ChoiceField(choices=settings.LANGUAGES, required=False)

    def validate_image(self, image: str | None) -> str | None:
        """An empty image clears it, as null does: answers then show null, never "" (which
        is no URL, as the schema of an answer's `image` says)."""
        return image or None
