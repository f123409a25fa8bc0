"""Back office of accounts: users by type, their role records and their API tokens.

Users are created, changed and deleted through accounts.services, so the role record of
each type and the staff flags (kept equal to userType ADMIN) follow as they do in the API.
"""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.models import Group
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts import services
from accounts.forms import UserPasswordSetForm
from accounts.models import AccessToken, Admin, Customer, Owner, User
from config.admin import ReadOnlyModelAdmin, ServiceModelAdmin, adopt_saved

# Access goes by userType alone (D6, D7): Django's permission groups are not used.
admin.site.unregister(Group)

# What an admin may change on a user through services.user_update.
PROFILE_FIELDS = ("email", "user_type", "name", "phone", "image")


@admin.register(User)
class UserAdmin(ServiceModelAdmin, DjangoUserAdmin):
    """Users, filtered by type; created with their role record, changed through the service."""

    # The "Set a new password" page saves through user_password_set (tokens revoked).
    change_password_form = UserPasswordSetForm
    ordering = ["-created_at", "id"]
    list_display = ["email", "name", "phone", "user_type", "is_active", "created_at"]
    list_filter = ["user_type", "is_active"]
    search_fields = ["email", "name", "phone"]
    show_full_result_count = False
    # Staff and superuser flags follow userType (accounts.services); they are not edited.
    readonly_fields = [
        "password_state",
        "is_staff",
        "is_superuser",
        "created_at",
        "updated_at",
        "last_login",
    ]
    fieldsets = [
        # Not Django's password summary: it shows the first characters of the salt and the
        # hash, and no password material appears in any response (D3).
        (None, {"fields": ["email", "password_state"]}),
        (_("Profile"), {"fields": ["name", "phone", "image", "email_verified", "user_type"]}),
        (_("Access"), {"fields": ["is_active", "is_staff", "is_superuser"]}),
        (_("Dates"), {"fields": ["last_login", "created_at", "updated_at"]}),
    ]
    add_fieldsets = [
        (
            None,
            {
                "classes": ["wide"],
                "fields": ["email", "password1", "password2", "user_type", "name", "phone"],
            },
        )
    ]

    @admin.display(description=_("password"))
    def password_state(self, user: User) -> str:
        state = (
            gettext("Set")
            if user.has_usable_password()
            else gettext("Not set (no password sign-in)")
        )
        # Django names the password view after auth.User, whatever the user model.
        url = reverse(f"{self.admin_site.name}:auth_user_password_change", args=[user.pk])
        return format_html('{}. <a href="{}">{}</a>', state, url, gettext("Set a new password"))

    def save_model(self, request, obj, form, change) -> None:
        if not change:
            created = services.user_create(
                email=obj.email,
                password=form.cleaned_data.get("password1"),
                name=obj.name,
                phone=obj.phone,
                user_type=obj.user_type,
            )
            adopt_saved(obj, created)
            return
        # The service compares with the stored row, so it gets a fresh copy, not the form's.
        stored = User.objects.get(pk=obj.pk)
        # No rule governs these two: they are saved with the service's save of the user.
        stored.is_active = obj.is_active
        stored.email_verified = obj.email_verified
        changed = set(form.changed_data) & set(PROFILE_FIELDS)
        services.user_update(
            user=stored,
            by=request.user,
            fields=changed,
            **{name: getattr(obj, name) for name in changed},
        )
        adopt_saved(obj, stored)

    def delete_model(self, request, obj) -> None:
        services.user_delete(user=obj, by=request.user)

    def delete_queryset(self, request, queryset) -> None:
        for user in queryset:
            services.user_delete(user=user, by=request.user)


@admin.register(Owner, Customer, Admin)
class RoleAdmin(ReadOnlyModelAdmin):
    """Role records: made and removed with their user (accounts.services), read here."""

    list_display = ["id", "user", "created_at"]
    list_select_related = ["user"]
    search_fields = ["user__email"]


@admin.register(AccessToken)
class AccessTokenAdmin(admin.ModelAdmin):
    """API tokens can be reviewed and revoked (deleted) here, never created or read back."""

    list_display = ["id", "user", "created_at", "expires_at"]
    list_select_related = ["user"]
    search_fields = ["user__email"]
    fields = ["id", "user", "created_at", "expires_at"]
    readonly_fields = fields

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def delete_model(self, request, obj) -> None:
        services.access_token_revoke(access_token=obj)

    def delete_queryset(self, request, queryset) -> None:
        for access_token in queryset:
            services.access_token_revoke(access_token=access_token)
