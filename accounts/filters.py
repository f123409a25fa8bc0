"""Query filters of GET /users."""

import django_filters

from accounts.models import User, UserType


class UserFilter(django_filters.FilterSet):
    """`userType` (CUSTOMER, OWNER, ADMIN) and `email` (exact, any case)."""

    userType = django_filters.ChoiceFilter(field_name="user_type", choices=UserType.choices)
    email = django_filters.CharFilter(
        field_name="email", lookup_expr="iexact", help_text="Exact email, any case."
    )

    class Meta:
        model = User
        fields: list[str] = []
