"""The project's FilterSet (config.filters): every API filterset copies its declarations
shallowly and builds its form class once, and still judges each request on its own."""

import pytest

from accounts.filters import UserFilter
from appointments.filters import AppointmentFilter
from config.filters import FilterSet, SharedFilterDeclarations
from listings.filters import PropertyFilter
from notifications.filters import NotificationFilter

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
    assert first.is_valid()
    assert not second.is_valid()
    assert set(second.errors) == {choice}
