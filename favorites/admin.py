"""Back office of favorites: who saved which listing; removed through the service."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from config.admin import ReadOnlyModelAdmin
from favorites import services
from favorites.models import Favorite


@admin.register(Favorite)
class FavoriteAdmin(ReadOnlyModelAdmin):
    """Saved listings; users save them, an admin may remove one (favorites.services)."""

    list_display = ["created_at", "user_email", "listing"]
    list_select_related = ["property", "user"]
    search_fields = ["user__email", "property__title"]
    date_hierarchy = "created_at"
    show_full_result_count = False
    fields = ["user", "property", "created_at"]

    def has_delete_permission(self, request, obj=None) -> bool:
        return True

    @admin.display(description=_("user"), ordering="user__email")
    def user_email(self, favorite: Favorite) -> str:
        return favorite.user.email

    @admin.display(description=_("listing"), ordering="property__title")
    def listing(self, favorite: Favorite) -> str:
        return favorite.property.title

    def delete_model(self, request, obj) -> None:
        services.favorite_remove(favorite=obj, by=request.user)

    def delete_queryset(self, request, queryset) -> None:
        for favorite in queryset:
            services.favorite_remove(favorite=favorite, by=request.user)
