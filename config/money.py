"""Prices as people read them: in the platform's currency (settings.CURRENCY) and the way
the language being spoken writes numbers, "€1,250,000" in English, "1.250.000 €" in
Spanish (Babel's CLDR data). Cents are shown only when there are some."""

from decimal import Decimal

from babel import Locale
from babel.numbers import format_currency
from django.conf import settings
from django.utils import translation
from django.utils.functional import lazy


def price_format(amount: Decimal | int | str) -> str:
    """`amount` in CURRENCY, written in the active language's way."""
    locale = Locale.parse(translation.to_locale(translation.get_language() or "en"))
    amount = Decimal(amount)
    pattern = locale.currency_formats["standard"].pattern
    if amount == amount.to_integral_value():
        # The language's own pattern without its decimals: "¤#,##0", "#,##0 ¤".
        pattern = pattern.replace("0.00", "0")
    return format_currency(
        amount, settings.CURRENCY, format=pattern, locale=locale, currency_digits=False
    )


# The same, written when it is shown: an email's context is built before the email is
# rendered in its recipient's language (notifications.email.email_compose).
price_format_lazy = lazy(price_format, str)
