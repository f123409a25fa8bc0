"""Forms of the website's visit pages; appointments.services checks every rule (D10)."""

from django import forms
from django.utils.translation import gettext_lazy as _

from appointments.models import (
    DEFAULT_DURATION_MINUTES,
    MAX_DURATION_MINUTES,
    MIN_DURATION_MINUTES,
)

DATE_FORMAT = "%Y-%m-%dT%H:%M"


def _date_field() -> forms.DateTimeField:
    # Times are UTC like every timestamp of the platform (D3); the label says so.
    return forms.DateTimeField(
        label=_("Date and time (UTC)"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format=DATE_FORMAT),
    )


def _duration_field() -> forms.IntegerField:
    # The browser's hints come from the service's bounds; the service itself refuses others.
    return forms.IntegerField(
        label=_("Duration (minutes)"),
        initial=DEFAULT_DURATION_MINUTES,
        widget=forms.NumberInput(
            attrs={"min": MIN_DURATION_MINUTES, "max": MAX_DURATION_MINUTES, "step": 15}
        ),
    )


class VisitRequestForm(forms.Form):
    """Ask to visit a listing: when, for how long, and an optional note to the owner."""

    date = _date_field()
    duration = _duration_field()
    notes = forms.CharField(
        label=_("Message to the owner (optional)"),
        required=False,
        max_length=2000,
        empty_value=None,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


class RescheduleForm(forms.Form):
    """Move a visit to another time; it goes back to pending until the owner confirms."""

    date = _date_field()
    duration = _duration_field()
