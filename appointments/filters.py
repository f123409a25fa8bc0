"""Query filters of GET /appointments (interface + D8)."""

import datetime

import django_filters
from django import forms
from django.db.models import QuerySet

from appointments.models import Appointment, AppointmentStatus
from config.filters import IdFilter


class AppointmentFilterForm(forms.Form):
    def clean(self):
        data = super().clean()
        start, end = data.get("from"), data.get("to")
        if start is not None and end is not None and start > end:
            self.add_error("from", "from must not be later than to.")
        return data


class UTCDateTimeFilter(django_filters.IsoDateTimeFilter):
    """An ISO 8601 timestamp, compared in UTC.

    Python takes offsets up to +/-23:59, PostgreSQL only up to +/-15:59: a timestamp such as
    2031-03-27T03:07:15+18:22 is valid, and the database would refuse it as sent.
    """

    def filter(self, qs, value):
        if value is not None:
            value = value.astimezone(datetime.UTC)
        return super().filter(qs, value)


class AppointmentFilter(django_filters.FilterSet):
    """userId, ownerId, propertyId, status; `date` is a UTC day; `from` / `to` bound a range."""

    userId = IdFilter(field_name="user_id", help_text="The customer's user id.")
    ownerId = IdFilter(field_name="owner_id", help_text="The listing owner's Owner id.")
    propertyId = IdFilter(field_name="property_id", help_text="The listing's id.")
    status = django_filters.ChoiceFilter(choices=AppointmentStatus.choices)
    # D8 writes the day as YYYY-MM-DD; the locale's other formats (05/06/2031) are ambiguous.
    date = django_filters.DateFilter(
        method="filter_day", input_formats=["%Y-%m-%d"], help_text="A UTC day, YYYY-MM-DD."
    )
    to = UTCDateTimeFilter(field_name="date", lookup_expr="lte", help_text="Start at or before.")

    class Meta:
        model = Appointment
        fields: list[str] = []
        form = AppointmentFilterForm

    def filter_day(self, queryset: QuerySet, name: str, value: datetime.date) -> QuerySet:
        # Appointments that start on that day in UTC: [00:00, next day 00:00).
        start = datetime.datetime.combine(value, datetime.time.min, tzinfo=datetime.UTC)
        if value == datetime.date.max:
            # 9999-12-31 has no next day to stop at.
            return queryset.filter(date__gte=start)
        return queryset.filter(date__gte=start, date__lt=start + datetime.timedelta(days=1))


# `from` is a Python keyword, so it cannot be declared in the class body.
AppointmentFilter.base_filters["from"] = UTCDateTimeFilter(
    field_name="date", lookup_expr="gte", help_text="Start at or after."
)
