"""Dates and times as people read them: the way the language being spoken writes a day and
a time, "Friday, December 4, 2026, 10:00 AM UTC" in English, "viernes, 4 de diciembre de
2026, 10:00 UTC" in Spanish (Babel's CLDR data), as config.money writes prices."""

import datetime

from babel import Locale
from babel.dates import format_date, format_time, get_datetime_format
from django.utils import translation
from django.utils.functional import lazy


def datetime_format(moment: datetime.datetime) -> str:
    """An aware `moment` in UTC (the time zone visits are shown in), in the active language:
    the full day, the short time, joined by the language's pattern, then "UTC"."""
    locale = Locale.parse(translation.to_locale(translation.get_language() or "en"))
    moment = moment.astimezone(datetime.UTC)
    day = format_date(moment, "full", locale=locale)
    time = format_time(moment, "short", locale=locale)
    # Babel's own joining: the pattern's quoted literals ("'at'") lose their quotes.
    pattern = get_datetime_format("long", locale=locale).replace("'", "")
    return f"{pattern.replace('{1}', day).replace('{0}', time)} UTC"


# The same, written when it is shown: an email's context is built before the email is
# rendered in its recipient's language (notifications.email.email_compose).
datetime_format_lazy = lazy(datetime_format, str)
