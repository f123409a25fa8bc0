"""Reads of favorites: whose favorites a viewer may list (D7) and how items load, in one place."""

from django.db.models import F, Prefetch, QuerySet
from django.utils.translation import gettext_lazy

from accounts.models import User
from accounts.selectors import is_admin, user_id_named
from favorites.models import Favorite
from listings.selectors import gallery_files, property_visible_to
from media_app.models import Image

NEWEST_FIRST = ("-created_at", "-id")


def favorite_visible_to(*, viewer: User) -> QuerySet[Favorite]:
    """Favorites the viewer may see and remove: their own, every one for an admin."""
    favorites = Favorite.objects.all()
    if is_admin(viewer):
        return favorites
    if not viewer.is_authenticated:
        return favorites.none()
    return favorites.filter(user_id=viewer.pk)


def favorite_loading(favorites: QuerySet[Favorite]) -> QuerySet[Favorite]:
    """What an item shows: the listing (one join) and its photos in gallery order (one query)."""
    photos = Image.objects.order_by("position", "created_at", "id")
    # thumbnails: the website's favorites page shows the cover's 400 px copy.
    photos = photos.only("id", "file", "thumbnails", "property_id")
    columns = ("id", "created_at", "user_id")
    listing_columns = ("id", "title", "slug", "kind", "price", "transaction_type", "status")
    return (
        favorites.select_related("property")
        .only(*columns, *(f"property__{name}" for name in listing_columns))
        .prefetch_related(Prefetch("property__images", queryset=photos))
    )


def _favorites_listed(*, viewer: User, user_id: str | None) -> QuerySet[Favorite]:
    """One user's favorites whose listing the viewer still sees, checked as D7 says."""
    user_id = user_id_named(
        viewer=viewer,
        user_id=user_id,
        refusal=gettext_lazy("You may list only your own favorites."),
    )
    return Favorite.objects.filter(
        user_id=user_id, property__in=property_visible_to(viewer=viewer)
    ).order_by(*NEWEST_FIRST)


def favorite_list(*, viewer: User, user_id: str | None = None) -> QuerySet[Favorite]:
    """One user's favorites, newest first: the viewer's own unless `user_id` names someone else.

    Naming another user is for admins; anyone else gets 403 (D7). Favorites of listings the
    viewer can no longer see (someone else's PENDING or SUSPENDED listing) are left out.
    """
    return favorite_loading(_favorites_listed(viewer=viewer, user_id=user_id))


# The columns of a favorite in GET /favorites: its own, then its listing's.
FAVORITE_COLUMNS = ("id", "created_at", "user_id", "property_id")
FAVORITE_LISTING_COLUMNS = {
    f"property_{name}": F(f"property__{name}")
    for name in ("title", "kind", "price", "transaction_type", "status")
}


def favorite_list_rows(*, viewer: User, user_id: str | None = None) -> list[dict]:
    """favorite_list as plain rows, each with its listing's fields and `images` [(id, file
    name)] in gallery order: two queries, no model instances (GET /favorites; the rows are
    shaped by favorites.api.serializers.favorite_items, as the listings' are)."""
    rows = list(
        _favorites_listed(viewer=viewer, user_id=user_id).values(
            *FAVORITE_COLUMNS, **FAVORITE_LISTING_COLUMNS
        )
    )
    photos = gallery_files(row["property_id"] for row in rows)
    for row in rows:
        row["images"] = photos[row["property_id"]]
    return rows
