"""Back office of photos and videos: the inlines of a listing's page, and their own lists."""

from django.contrib import admin
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from media_app.models import GALLERY_ORDER, Image, Video

# The resized copy the back office shows (D11 makes at least 400 px and 1200 px wide ones).
PREVIEW_WIDTH = "400"


def image_preview_url(image: Image) -> str:
    """URL of the image's 400 px thumbnail when it has one, else of the original file."""
    name = (image.thumbnails or {}).get(PREVIEW_WIDTH)
    return image.file.storage.url(name) if name else image.file.url


def image_preview_tag(image: Image, *, alt: str, height: int = 60) -> str:
    """An <img> of the image's preview, with alt text; no query (the row is already loaded)."""
    return format_html(
        '<img src="{}" alt="{}" height="{}" loading="lazy">',
        image_preview_url(image),
        alt,
        height,
    )


class ImageInline(admin.TabularInline):
    """The photos on a listing's admin page: preview, title, position (the gallery order).

    Photos are added through the upload API and the website, which check the bytes, strip
    metadata and make the thumbnails; here they are reordered, retitled or deleted, through
    media_app.services (PropertyAdmin.save_formset).
    """

    model = Image
    extra = 0
    fields = ["preview", "title", "position", "width", "height", "created_at"]
    readonly_fields = ["preview", "width", "height", "created_at"]
    ordering = list(GALLERY_ORDER)

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description=_("preview"))
    def preview(self, image: Image) -> str:
        return image_preview_tag(image, alt=image.title or f"Photo {image.position}", height=90)


class VideoInline(admin.TabularInline):
    """The videos on a listing's admin page: link, title and position; added by upload only."""

    model = Video
    extra = 0
    fields = ["link", "title", "position", "content_type", "size", "created_at"]
    readonly_fields = ["link", "content_type", "size", "created_at"]
    ordering = list(GALLERY_ORDER)

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description=_("file"))
    def link(self, video: Video) -> str:
        return format_html('<a href="{}">{}</a>', video.file.url, video.title or "video")


@admin.register(Image, Video)
class MediaAdmin(admin.ModelAdmin):
    """Every photo and video with its listing, to look at only.

    Files are added by upload (the API and the website), which checks their bytes, strips
    their metadata and makes the thumbnails, and they are retitled, reordered and deleted
    from the listing's page, through media_app.services: a form of its own here would write
    rows and files past those rules.
    """

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    list_display = ["id", "title", "property", "position", "created_at"]
    list_select_related = ["property"]
    raw_id_fields = ["property"]
