"""Query filters of GET /notifications (userId is decided by notifications.selectors)."""

import django_filters
from django import forms
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from config.filters import IdFilter
from notifications.models import Notification, NotificationStatus


class StrictBooleanField(forms.Field):
    """`true` or `false`, exactly; anything else is an error (NullBooleanField would ignore it)."""

    def to_python(self, value):
        if value in (None, ""):
            return None
        if value in ("true", "false"):
            return value == "true"
        raise forms.ValidationError("Use true or false.", code="invalid")


@extend_schema_field(OpenApiTypes.BOOL)
class StrictBooleanFilter(django_filters.BooleanFilter):
    field_class = StrictBooleanField


class NotificationFilter(django_filters.FilterSet):
    """`propertyId`, `status` (SUCCESS, ERROR, WARNING, INFO) and `read` (true or false)."""

    propertyId = IdFilter(field_name="property_id")
    status = django_filters.ChoiceFilter(choices=NotificationStatus.choices)
    read = StrictBooleanFilter(field_name="read")

    class Meta:
        model = Notification
        fields: list[str] = []
