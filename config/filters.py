"""The project's django-filter FilterSet: the same filters and forms, made once per class.

django-filter deep-copies every declared filter, their choices and field arguments with
them, and builds a new form class with a new field per filter, for every filterset it makes:
about 1.5 ms of a list request's CPU (docs/performance.md). Both follow from the class's
declarations alone, so:
- each filterset copies the declared filters shallowly (SharedFilterDeclarations);
- the form class is built once per filterset class. Each form still deep-copies its fields
  (Django's Form does), so a page may change its own form's fields (the website relabels
  the search form's).
"""

import copy

import django_filters


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


class FilterSet(django_filters.FilterSet):
    """django_filters.FilterSet whose filters and form class cost little per request."""

    @classmethod
    def get_filters(cls):
        return SharedFilterDeclarations(super().get_filters())

    def get_form_class(self):
        filterset_class = self.__class__
        if "_form_class" not in filterset_class.__dict__:
            filterset_class._form_class = super().get_form_class()
        return filterset_class._form_class
