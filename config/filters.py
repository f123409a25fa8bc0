"""The project's django-filter FilterSet: the same filters and forms, made once per class.

django-filter deep-copies every declared filter, their choices and field arguments with
them, and builds a new form class with a new field per filter, for every filterset it makes:
about 1.5 ms of a list request's CPU; and Django's Form deep-copies its fields again for
each form, another 0.5 ms (docs/performance.md). All follow from the class's declarations
alone, so:
- each filterset copies the declared filters shallowly (SharedFilterDeclarations);
- the form class is built once per filterset class, and its forms share its fields
  (SharedFields). A filterset that shows its form differently (the website's labels)
  changes the fields once, in `shape_form_fields`, never on a form;
- the fields a request leaves out take the value they clean to when missing, found once
  per form class (AbsentFieldsCleanedOnce), instead of being cleaned for every form;
- the filters that are plain lookups on the model's own columns are applied in one
  filter() call (FilterSet.filter_queryset), not one call, and one copy of the query, each.
"""

import copy

import django_filters
from django import forms
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.db.models.constants import LOOKUP_SEP
from django.http import QueryDict
from django.utils.datastructures import MultiValueDict
from django_filters.constants import EMPTY_VALUES
from django_filters.rest_framework import DjangoFilterBackend

from config.ids import ID_LENGTH, ID_MESSAGE, id_validator, is_id

# Filters whose filter() is django-filter's own: one lookup on their field with their value.
_PLAIN_FILTER_METHODS = (django_filters.Filter.filter, django_filters.ChoiceFilter.filter)


def _plain_condition(declared: django_filters.Filter, value) -> Q | None:
    """What a filter that filters plainly (_applies_plainly) adds to the query for `value`,
    as its own filter() would: nothing for an empty value, `IS NULL` for a choice filter's
    null value."""
    if isinstance(declared, django_filters.ChoiceFilter) and value == declared.null_value:
        value = None
    elif value in EMPTY_VALUES:
        return None
    return Q(**{f"{declared.field_name}{LOOKUP_SEP}{declared.lookup_expr}": value})


def _applies_plainly(declared: django_filters.Filter) -> bool:
    """Whether a filter is one lookup on a column of the model itself: no method of its
    own, no join (where filter() calls one after another could differ from one call with
    every condition), no DISTINCT, no exclusion."""
    return (
        declared.method is None
        and type(declared).filter in _PLAIN_FILTER_METHODS
        and not declared.distinct
        and not declared.exclude
        and LOOKUP_SEP not in declared.field_name
    )


class SharedFilterDeclarations(dict):
    """A filterset class's declared filters, copied shallowly for each filterset.

    A filter's own state is its model and its filterset (which FilterSet.__init__ sets on the
    copy); its declaration is only read. So each filter is copied shallowly, and a method
    filter is bound again to its copy, so that it finds the method on its own filterset.
    """

    def __deepcopy__(self, memo) -> dict:
        copies = {}
        for name, declared in self.items():
            own = copy.copy(declared)
            if declared.method is not None:
                own.method = declared.method
            copies[name] = own
        return copies


class SharedFields(dict):
    """A form class's fields, shared by its forms instead of deep-copied into each.

    Django's Form copies its fields so that one form may change its own; cleaning and
    rendering only read them, so forms whose fields are never changed can share them.
    """

    def __deepcopy__(self, memo) -> dict:
        return dict(self)


class AbsentFieldsCleanedOnce:
    """A filter form whose fields missing from the data take the value their field cleans
    a missing value to, worked out once per form class, instead of being cleaned for each
    form.

    A search names a few of a filterset's twenty parameters; cleaning every other field to
    its empty value (a bound field, the widget's reading, the field's conversions and
    validators each) was most of the form's work. A field whose missing value does not
    clean (a required one), a disabled one, or one with its form's own clean_<name>, is
    cleaned as Django cleans it.
    """

    @classmethod
    def _missing_values(cls) -> dict:
        if "_cleaned_when_missing" not in cls.__dict__:
            nothing = QueryDict()
            cleaned = {}
            for name, field in cls.base_fields.items():
                if field.disabled or hasattr(cls, f"clean_{name}"):
                    continue
                try:
                    cleaned[name] = field.clean(
                        field.widget.value_from_datadict(nothing, MultiValueDict(), name)
                    )
                except ValidationError:
                    continue
            cls._cleaned_when_missing = cleaned
        return cls._cleaned_when_missing

    def _clean_fields(self):
        # Django's Form._clean_fields, but for the fields missing from the data.
        missing = self._missing_values()
        for name, field in self.fields.items():
            if name in missing and field.widget.value_omitted_from_data(
                self.data, self.files, self.add_prefix(name)
            ):
                self.cleaned_data[name] = copy.copy(missing[name])
                continue
            try:
                self.cleaned_data[name] = field._clean_bound_field(self[name])
                if hasattr(self, f"clean_{name}"):
                    self.cleaned_data[name] = getattr(self, f"clean_{name}")()
            except ValidationError as error:
                self.add_error(name, error)


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


class FilterSet(django_filters.FilterSet):
    """django_filters.FilterSet whose filters and form class cost little per request."""

    @classmethod
    def shape_form_fields(cls, fields: dict) -> None:
        """Change the form's fields (labels, widgets) once, when the form class is built:
        its forms share them, so no form may change them."""

    @classmethod
    def get_filters(cls):
        return SharedFilterDeclarations(super().get_filters())

    def filter_queryset(self, queryset):
        """django-filter's filtering, the filters on the model's own columns applied
        together in one filter() call: each call copies the whole query, and a search of
        seven filters spent more time copying it than building its conditions. Filters
        with a method, or anything else of their own, filter as they do."""
        together = []
        for name, value in self.form.cleaned_data.items():
            declared = self.filters[name]
            if _applies_plainly(declared):
                condition = _plain_condition(declared, value)
                if condition is not None:
                    together.append(condition)
            else:
                queryset = declared.filter(queryset, value)
        return queryset.filter(*together) if together else queryset

    def get_form_class(self):
        filterset_class = self.__class__
        if "_form_class" not in filterset_class.__dict__:
            made = super().get_form_class()
            form_class = type(made.__name__, (AbsentFieldsCleanedOnce, made), {})
            filterset_class.shape_form_fields(form_class.base_fields)
            form_class.base_fields = SharedFields(form_class.base_fields)
            filterset_class._form_class = form_class
        return filterset_class._form_class


class FilterBackend(DjangoFilterBackend):
    """django-filter's DRF backend, which also leaves the filterset it used on the view
    (`view.filterset`), so that the view can ask it what it filtered on."""

    def get_filterset(self, request, queryset, view):
        filterset = super().get_filterset(request, queryset, view)
        view.filterset = filterset
        return filterset
