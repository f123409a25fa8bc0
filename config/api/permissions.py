"""Permission classes of the D7 matrix, shared by every app's API."""

from rest_framework.permissions import SAFE_METHODS, BasePermission

from accounts.models import UserType
from accounts.selectors import is_admin


class IsAdmin(BasePermission):
    """ADMIN users only."""

    message = "Only administrators may do this."

    def has_permission(self, request, view) -> bool:
        return is_admin(request.user)


class IsOwnerUser(BasePermission):
    """OWNER users (and admins, who may do everything)."""

    message = "Only owners may do this."

    def has_permission(self, request, view) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.user_type == UserType.OWNER) or (
            is_admin(user)
        )


class ReadOnlyOrAdmin(BasePermission):
    """Anyone reads; only admins write (categories, D15)."""

    message = "Only administrators may change this."

    def has_permission(self, request, view) -> bool:
        return request.method in SAFE_METHODS or is_admin(request.user)
