"""Form fields and django-filter filters shared by the API's and the website's readers."""

import django_filters
from django import forms
from django.core.exceptions import ValidationError

from config.ids import ID_LENGTH, ID_MESSAGE, id_validator, is_id


class IdFormField(forms.CharField):
    """An id (config.ids), or nothing; anything else is an error on the parameter.

    Its length and pattern are validators, which the API's schema states
    (config.api.schema.FilterExtension); to_python refuses anything that is not an id before
    they run, so a wrong id gets one message. Kept exactly as sent, like the API's ids.
    """

    def __init__(self, **kwargs):
        kwargs.setdefault("strip", False)
        super().__init__(min_length=ID_LENGTH, max_length=ID_LENGTH, **kwargs)
        self.validators.append(id_validator)

    def to_python(self, value) -> str:
        value = super().to_python(value)
        if value not in self.empty_values and not is_id(value):
            raise ValidationError(ID_MESSAGE, code="invalid")
        return value


class IdFilter(django_filters.CharFilter):
    """A filter on a column holding ids (ownerId, propertyId, ...): an empty value is no
    filter, anything else must be an id (400 otherwise)."""

    field_class = IdFormField
