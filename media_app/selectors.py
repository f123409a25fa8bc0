"""Reads of media: photos and videos follow the visibility of their listing (D7)."""

from django.db.models import QuerySet

from accounts.models import User
from listings.models import Property
from listings.selectors import property_visible_to
from media_app.models import GALLERY_ORDER, Image, Video


def image_visible_to(*, viewer: User) -> QuerySet[Image]:
    """Photos of the listings the viewer may see, with the listing's owner for write checks."""
    return Image.objects.filter(property__in=property_visible_to(viewer=viewer)).select_related(
        "property__owner"
    )


def video_visible_to(*, viewer: User) -> QuerySet[Video]:
    """Videos of the listings the viewer may see, with the listing's owner for write checks."""
    return Video.objects.filter(property__in=property_visible_to(viewer=viewer)).select_related(
        "property__owner"
    )


def image_gallery(*, property: Property) -> QuerySet[Image]:
    """A listing's photos in gallery order (position, then createdAt, then id)."""
    return Image.objects.filter(property=property).order_by(*GALLERY_ORDER)


def video_gallery(*, property: Property) -> QuerySet[Video]:
    """A listing's videos in gallery order (position, then createdAt, then id)."""
    return Video.objects.filter(property=property).order_by(*GALLERY_ORDER)
