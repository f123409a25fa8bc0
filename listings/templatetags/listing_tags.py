"""Template filters of the website's listing pages: photos, prices and facts."""

from decimal import Decimal

from django import template
from django.core.files.storage import default_storage
from django.templatetags.static import static
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext_lazy

from config.money import price_format
from listings.models import KIND_FIELDS, TypeSpecificRecord
from media_app.selectors import media_files_stored, photo_sources

register = template.Library()

# What an image shows when none of its photo's files is in the storage: no request 404s.
PHOTO_PLACEHOLDER = "img/photo-placeholder.svg"
# Facts a listing card shows after the area, in this order, when its kind has them: each
# one's words for its value, a count (plural forms) or the land type's name.
CARD_FACTS = {
    "bedrooms": ngettext_lazy("%(value)s bedroom", "%(value)s bedrooms", "value"),
    "bathrooms": ngettext_lazy("%(value)s bathroom", "%(value)s bathrooms", "value"),
    "rooms": ngettext_lazy("%(value)s room", "%(value)s rooms", "value"),
    "number_of_units": ngettext_lazy("%(value)s unit", "%(value)s units", "value"),
    "floors": ngettext_lazy("%(value)s floor", "%(value)s floors", "value"),
    "land_type": gettext_lazy("%(value)s land"),
}


@register.filter
def photo_url(image, width: str = "400") -> str:
    """The URL of the photo's copy of this width when it is stored, else of its narrowest
    stored file, else of the placeholder picture (media_app.selectors.photo_sources)."""
    name = (image.thumbnails or {}).get(str(width))
    if name and name in media_files_stored([name]):
        return default_storage.url(name)
    sources = photo_sources([image])
    return sources[0].src if sources else static(PHOTO_PLACEHOLDER)


@register.simple_tag
def photo_placeholder() -> str:
    """The URL of the picture shown where a listing has no photo to show."""
    return static(PHOTO_PLACEHOLDER)


@register.filter
def price(value) -> str:
    """A price in CURRENCY as the page's language writes it: 250000.00 -> "€250,000" in
    English, "250.000 €" in Spanish; cents are shown only when there are some."""
    if value is None:
        return ""
    return price_format(value)


@register.filter
def area(value) -> str:
    """120.50 -> "120.5"; a whole number of square metres loses its decimals."""
    if value is None:
        return ""
    return f"{Decimal(value).normalize():f}"


def _fact(record: TypeSpecificRecord, name: str) -> tuple[str, str]:
    field = TypeSpecificRecord._meta.get_field(name)
    value = getattr(record, name)
    if isinstance(value, bool):
        shown = _("Yes") if value else _("No")
    elif field.choices:
        shown = getattr(record, f"get_{name}_display")()
    else:
        shown = str(value)
    return str(field.verbose_name).capitalize(), shown


@register.filter
def record_facts(record: TypeSpecificRecord | None) -> list[tuple[str, str]]:
    """Every fact of a type-specific record as (label, value), in the order of its kind."""
    # A listing before step 2 has no record: the template hands over None or "".
    if not isinstance(record, TypeSpecificRecord):
        return []
    return [_fact(record, name) for name in KIND_FIELDS[record.kind]]


@register.filter
def card_facts(record: TypeSpecificRecord | None) -> list[str]:
    """At most three short facts for a listing card: "3 bedrooms", "Buildable land", ..."""
    if not isinstance(record, TypeSpecificRecord):
        return []
    facts = []
    for name, noun in CARD_FACTS.items():
        if name in KIND_FIELDS[record.kind]:
            # A count chooses its plural form; the land type is its translated name.
            value = record.get_land_type_display() if name == "land_type" else getattr(record, name)
            facts.append(noun % {"value": value})
    return facts[:3]
