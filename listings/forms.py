"""Forms of the website's listing pages.

The search form shows the search's own parameters (listings.search.params.PARAMETERS: the
API's names, so a search page's URL is the API's query) with readable labels; the search
reads and checks them (listings.search.search_params) and its refusals are shown on the
form. The listing forms are model forms, so their checks are the model's fields and
constraints; the writes go through listings.services.
"""

from decimal import Decimal

from django import forms
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from listings.models import (
    KIND_FIELDS,
    Property,
    PropertyCategory,
    PropertyType,
    TransactionType,
    TypeSpecificRecord,
)
from listings.search import PARAMETERS, SearchParams, SearchParamsInvalid, search_params
from listings.search.params import SORTS

# Labels of the search form, in the order the form shows them; the names are the API's.
SEARCH_LABELS = {
    "q": _("Keywords"),
    "type": _("Type"),
    "transactionType": _("Sale or rent"),
    "municipality": _("Municipality"),
    "minPrice": _("Minimum price"),
    "maxPrice": _("Maximum price"),
    "minArea": _("Minimum area (m²)"),
    "maxArea": _("Maximum area (m²)"),
    "minBedrooms": _("Minimum bedrooms"),
    "sort": _("Sort by"),
}
# Parameters the form does not show but keeps when it is sent again (set by the map or a link).
SEARCH_KEPT = ("bbox", "polygon", "lat", "lng", "radiusKm", "categoryId", "ownerId", "status")
SORT_LABELS = {
    "-createdAt": _("Newest first"),
    "createdAt": _("Oldest first"),
    "price": _("Price, lowest first"),
    "-price": _("Price, highest first"),
    "area": _("Area, smallest first"),
    "-area": _("Area, largest first"),
}
TRANSACTION_LABELS = {TransactionType.SALE: _("For sale"), TransactionType.RENT: _("For rent")}
# The choice fields' first choice, "no filter", and their labelled choices.
CHOICES = {
    "type": (_("Any type"), PropertyType.choices),
    "transactionType": (_("Sale or rent"), list(TRANSACTION_LABELS.items())),
    "sort": (_("Best match"), [(key, SORT_LABELS[key]) for key in SORTS]),
}
NUMBER_INPUTS = ("minPrice", "maxPrice", "minArea", "maxArea", "minBedrooms")


class SearchForm(forms.Form):
    """The search page's form: the visible search parameters with labels and inputs, bound to
    the page's query string. Its fields are the search's own (PARAMETERS); the search itself
    is read by listings.search.search_params, whose refusals the form shows too (ranges,
    the map's parameters). Valid, it holds the search in `params`."""

    params: SearchParams | None = None

    def __init__(self, data):
        super().__init__(data)
        for name, label in SEARCH_LABELS.items():
            field = PARAMETERS[name].field()
            field.label = label
            if name in CHOICES:
                empty_label, choices = CHOICES[name]
                field.choices = [("", empty_label), *choices]
            if name in NUMBER_INPUTS:
                field.widget.attrs.update({"inputmode": "numeric", "min": "0"})
            self.fields[name] = field
        self.fields["q"].widget.attrs["type"] = "search"
        # The town field suggests towns as one types (static/js/place-suggest.js, a WAI-ARIA
        # combobox over GET /places); without JavaScript it is a plain text field.
        self.fields["municipality"].widget.attrs.update(
            {
                "role": "combobox",
                "aria-autocomplete": "list",
                "aria-expanded": "false",
                "aria-controls": "municipality-suggestions",
                "autocomplete": "off",
                "data-suggest-url": reverse("places-list"),
            }
        )

    def clean(self):
        try:
            self.params = search_params(self.data)
        except SearchParamsInvalid as refused:
            for name, refusals in refused.errors.items():
                field = name if name in self.fields else None
                shown = self.errors.get(name, []) if field else []
                for refusal in refusals:
                    if refusal.message not in shown:
                        message = refusal.message if field else f"{name}: {refusal.message}"
                        self.add_error(field, message)
        return self.cleaned_data

    def filter_fields(self) -> list[forms.BoundField]:
        """The fields a phone folds behind "Filters (n)": all but the keywords."""
        return [self[name] for name in SEARCH_LABELS if name != "q"]

    def active_filter_count(self) -> int:
        """How many of the folded fields narrow the search: the n of "Filters (n)" (the
        order of the results narrows nothing)."""
        return sum(
            1
            for field in self.filter_fields()
            if field.name != "sort" and str(self.data.get(field.name, "")).strip()
        )

    def kept_values(self) -> list[tuple[str, str]]:
        """(name, value) of the hidden parameters the query string carries."""
        return [(name, self.data[name]) for name in SEARCH_KEPT if self.data.get(name)]


def _number(step: str) -> forms.NumberInput:
    return forms.NumberInput(attrs={"step": step})


class PropertyForm(forms.ModelForm):
    """Step 1 of a listing, and its edit form: the fields every kind of property shares."""

    category = forms.ModelChoiceField(
        queryset=PropertyCategory.objects.order_by("name", "id"), empty_label=_("Choose a category")
    )
    # The ranges of D3, held by the model's check constraints; stated on the fields (like the
    # API's serializer does) so that a person reads "at most 90" rather than a constraint name.
    price = forms.DecimalField(
        label=_("Price"), max_digits=14, decimal_places=2, min_value=0, widget=_number("0.01")
    )
    area = forms.DecimalField(
        label=_("Area (m²)"),
        max_digits=12,
        decimal_places=2,
        min_value=Decimal("0.01"),
        widget=_number("0.01"),
    )
    latitude = forms.FloatField(
        label=_("Latitude"),
        min_value=-90,
        max_value=90,
        widget=_number("any"),
        help_text=_("Decimal degrees, -90 to 90."),
    )
    longitude = forms.FloatField(
        label=_("Longitude"),
        min_value=-180,
        max_value=180,
        widget=_number("any"),
        help_text=_("Decimal degrees, -180 to 180."),
    )

    class Meta:
        model = Property
        fields = [
            "title",
            "description",
            "category",
            "transaction_type",
            "price",
            "area",
            "municipality",
            "address",
            "latitude",
            "longitude",
        ]
        labels = {"transaction_type": _("Sale or rent")}
        widgets = {
            "description": forms.Textarea(attrs={"rows": 6}),
            "transaction_type": forms.RadioSelect,
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Radio buttons: no empty "Select an option" choice for a required field.
        self.fields["transaction_type"].choices = list(TRANSACTION_LABELS.items())

    def changes(self) -> dict:
        """The common fields as property_update takes them (the category goes separately)."""
        return {name: value for name, value in self.cleaned_data.items() if name != "category"}


# "True"/"False" as str() writes them, so that a saved record's facts show as selected.
YES_NO = [("True", _("Yes")), ("False", _("No"))]


def _record_field(model_field, **kwargs) -> forms.Field:
    """Every fact of a kind is required (D9); a yes/no fact is a pair of radio buttons."""
    if model_field.get_internal_type() == "BooleanField":
        return forms.TypedChoiceField(
            label=str(model_field.verbose_name).capitalize(),
            choices=YES_NO,
            coerce=lambda value: value == "True",
            widget=forms.RadioSelect,
        )
    field = model_field.formfield(**kwargs)
    field.required = True
    field.label = str(model_field.verbose_name).capitalize()
    if isinstance(field, forms.TypedChoiceField):
        # Required: the empty "---------" choice would only lead to an error.
        field.choices = [choice for choice in field.choices if choice[0] != ""]
    return field


def type_record_form_class(kind: str) -> type[forms.ModelForm]:
    """Step 2 of a listing: the form of one kind, with exactly the facts KIND_FIELDS names."""
    return forms.modelform_factory(
        TypeSpecificRecord, fields=list(KIND_FIELDS[kind]), formfield_callback=_record_field
    )


class KindForm(forms.Form):
    """Step 2 starts by choosing which kind of property the listing is."""

    kind = forms.ChoiceField(
        label=_("What kind of property is it?"),
        choices=PropertyType.choices,
        widget=forms.RadioSelect,
    )
