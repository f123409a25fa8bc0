"""The project's FilterSet (config.filters): every API filterset copies its declarations
shallowly and builds its form class once, and still judges each request on its own."""

import django_filters
import pytest
from django.db.models import QuerySet
from django.http import QueryDict

from accounts.filters import UserFilter
from appointments.filters import AppointmentFilter
from config.filters import (
    AbsentFieldsCleanedOnce,
    FilterSet,
    SharedFields,
    SharedFilterDeclarations,
)
from listings.filters import PropertyFilter
from listings.forms import SearchPageFilter
from listings.models import Property
from notifications.filters import NotificationFilter
from tests.factories import ListingFactory

# Each filterset with a choice parameter that a made-up value fails.
FILTERSETS = [
    (PropertyFilter, "status"),
    (NotificationFilter, "status"),
    (AppointmentFilter, "status"),
    (UserFilter, "userType"),
]


@pytest.mark.parametrize(("filterset_class", "choice"), FILTERSETS)
def test_every_filterset_has_filters_of_its_own_and_one_form_class(filterset_class, choice, db):
    # given two filtersets of the same class, one bound to a made-up choice
    queryset = filterset_class._meta.model._default_manager.all()
    first = filterset_class({}, queryset=queryset)
    second = filterset_class({choice: "NO-SUCH-CHOICE"}, queryset=queryset)

    # then both are the project's, their filters are their own and bound to them, and
    # they share one form class while judging their own data
    assert issubclass(filterset_class, FilterSet)
    assert isinstance(filterset_class.base_filters, SharedFilterDeclarations)
    for name, declared in filterset_class.base_filters.items():
        assert first.filters[name] is not second.filters[name] is not declared
        assert (first.filters[name].parent, second.filters[name].parent) == (first, second)
    assert type(first.form) is type(second.form)
    assert isinstance(type(first.form).base_fields, SharedFields)
    assert all(first.form.fields[name] is second.form.fields[name] for name in first.form.fields)
    assert first.is_valid()
    assert not second.is_valid()
    assert set(second.errors) == {choice}


def test_the_websites_labels_are_on_its_own_form_class_not_on_the_apis(db):
    # given the website's search filters and the API's, each bound to a query
    queryset = Property.objects.all()
    website = SearchPageFilter({"q": "garden", "minPrice": "x"}, queryset=queryset)
    api = PropertyFilter({"q": "garden"}, queryset=queryset)

    # then the website's form shows its labels and inputs, and judges its data as the API's
    # does, while the API's form fields are as django-filter made them
    assert website.form.fields["q"].label == "Keywords"
    assert website.form.fields["q"].widget.attrs == {"maxlength": "200", "type": "search"}
    assert website.form.fields["minPrice"].widget.attrs["inputmode"] == "numeric"
    assert list(website.form.fields["sort"].choices)[:2] == [
        ("", "Best match"),
        ("-createdAt", "Newest first"),
    ]
    assert not website.is_valid()
    assert set(website.errors) == {"minPrice"}
    assert api.form.fields["q"].label != "Keywords"
    assert api.form.fields["q"].widget.attrs == {"maxlength": "200"}
    assert "inputmode" not in api.form.fields["minPrice"].widget.attrs
    assert api.is_valid()


def test_filters_on_the_models_own_columns_are_applied_in_one_call(db, monkeypatch):
    # given listings, and a search on six columns of theirs and a town (a method filter)
    wanted = ListingFactory(
        kind="house", transaction_type="SALE", price=250_000, municipality="Madrid", bedrooms=3
    )
    ListingFactory(kind="house", transaction_type="SALE", price=250_000, municipality="Lugo")
    ListingFactory(kind="house", transaction_type="RENT", price=1_200, municipality="Madrid")
    ListingFactory(kind="apartment", transaction_type="SALE", price=90_000, bedrooms=1)
    search = {
        "type": "house",
        "transactionType": "SALE",
        "minPrice": "100000",
        "maxPrice": "400000",
        "minBedrooms": "2",
        "municipality": " madrid ",
    }
    filterset = PropertyFilter(search, queryset=Property.objects.all())
    assert filterset.is_valid()
    calls = []
    filter_once = QuerySet.filter

    def counted(queryset, *args, **kwargs):
        calls.append(args or kwargs)
        return filter_once(queryset, *args, **kwargs)

    monkeypatch.setattr(QuerySet, "filter", counted)

    # when the project's filterset and django-filter's own filter the listings
    ours = FilterSet.filter_queryset(filterset, Property.objects.all())
    ours_calls, calls[:] = len(calls), []
    theirs = django_filters.FilterSet.filter_queryset(filterset, Property.objects.all())

    # then they find the same listing, the project's in two calls: the town's, the rest's
    assert list(ours) == list(theirs) == [wanted]
    assert (ours_calls, len(calls)) == (2, 6)


QUERIES = [
    {},
    {"status": "AVAILABLE"},
    {"minPrice": "100", "maxPrice": "50", "q": "  garden "},
    {"status": "NO-SUCH-CHOICE", "minBedrooms": "two", "bbox": "1,2,3"},
    {"lat": "40.4", "lng": "-3.7", "radiusKm": "5", "sort": "-price", "page": "2"},
    {"userType": "CUSTOMER", "unread": "true", "isRead": "maybe"},
]


@pytest.mark.parametrize(("filterset_class", "choice"), [*FILTERSETS, (SearchPageFilter, "sort")])
@pytest.mark.parametrize("query", QUERIES)
def test_forms_clean_missing_fields_to_what_django_cleans_them_to(
    filterset_class, choice, query, db
):
    # given a query naming some of a filterset's parameters (some of them wrongly)
    queryset = filterset_class._meta.model._default_manager.all()
    data = QueryDict(mutable=True)
    data.update(query)
    form = filterset_class(data, queryset=queryset).form
    # and Django's own form of the same fields, which cleans every field
    djangos = type(form).__bases__[1](data)

    # then both clean the data to the same values and find the same errors
    assert isinstance(form, AbsentFieldsCleanedOnce)
    assert not isinstance(djangos, AbsentFieldsCleanedOnce)
    assert form.is_valid() is djangos.is_valid()
    assert form.cleaned_data == djangos.cleaned_data
    assert form.errors == djangos.errors
