"""Forms of the website's saved searches (saving the search on the page, renaming a saved
search or changing how often it alerts) and email preferences. Their rules are the
services' own (notifications.services); a refusal is shown on the field it names."""

from urllib.parse import urlencode

from django import forms
from django.utils.translation import gettext_lazy as _

from listings.models import PropertyType, TransactionType
from listings.search import SearchParams
from notifications.models import AlertFrequency, EmailTopic
from notifications.services import SAVED_SEARCH_NAME_MAX_LENGTH


class SavedSearchForm(forms.Form):
    """A saved search's name and frequency."""

    name = forms.CharField(label=_("Name"), max_length=SAVED_SEARCH_NAME_MAX_LENGTH)
    frequency = forms.ChoiceField(
        label=_("Alert me"), choices=AlertFrequency.choices, initial=AlertFrequency.DAILY
    )


class SaveSearchForm(SavedSearchForm):
    """Saving the search on the page: its criteria (the page's query string, which the
    service checks as the API's criteria) with a name and a frequency."""

    criteria = forms.CharField(widget=forms.HiddenInput, max_length=8000)


class EmailPreferencesForm(forms.Form):
    """One checkbox per email topic: ticked, its emails are wanted."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for topic in EmailTopic:
            self.fields[topic.value] = forms.BooleanField(label=topic.label, required=False)


def suggested_name(params: SearchParams) -> str:
    """A name for a search that says what it looks for: "Apartments for rent in Madrid"."""
    kind = PropertyType(params.kind).label + "s" if params.kind else "Listings"
    words = [kind]
    if params.transaction_type:
        words.append("for rent" if params.transaction_type == TransactionType.RENT else "for sale")
    if params.municipality:
        words.append(f"in {params.municipality}")
    elif params.box or params.circle or params.polygon:
        words.append("in an area of the map")
    if params.text:
        words.append(f"with “{params.text}”")
    return " ".join(words)[:SAVED_SEARCH_NAME_MAX_LENGTH]


def criteria_query(criteria: dict[str, str]) -> str:
    """A saved search's criteria as the search page's query string."""
    return urlencode(criteria)
