"""Photos and videos of a listing; the files live in Django's default storage."""

from django.db import models
from django.db.models import Q

from config.models import IdField
from listings.models import Property

# Order of a listing's photos and videos: position, then upload time, then id (a stable
# tie-break). The first photo in this order is the listing's cover.
GALLERY_ORDER = ("position", "created_at", "id")


def media_upload_to(instance: "Image | Video", filename: str) -> str:
    """Files go under a per-listing prefix, named by the row id (never the client's name)."""
    extension = filename.rsplit(".", 1)[-1].lower() if "." in filename else "bin"
    folder = "images" if isinstance(instance, Image) else "videos"
    return f"properties/{instance.property_id}/{folder}/{instance.id}.{extension}"


class Image(models.Model):
    """A photo of a listing; `position` orders the gallery, the first is the cover."""

    id = IdField()
    property = models.ForeignKey(Property, on_delete=models.CASCADE, related_name="images")
    file = models.FileField(upload_to=media_upload_to, max_length=300)
    title = models.CharField(max_length=200, blank=True, null=True)
    position = models.PositiveIntegerField(default=0)
    width = models.PositiveIntegerField(null=True, blank=True)
    height = models.PositiveIntegerField(null=True, blank=True)
    content_type = models.CharField(max_length=50, default="image/jpeg")
    # Storage names of the resized copies, keyed by width in pixels ("400", "1200").
    thumbnails = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = list(GALLERY_ORDER)
        constraints = [
            models.CheckConstraint(
                condition=Q(position__gte=0), name="media_image_position_non_negative"
            )
        ]
        indexes = [
            models.Index(
                fields=["property", "position", "created_at"], name="media_image_order_idx"
            )
        ]

    def __str__(self) -> str:
        return self.title or self.file.name


class Video(models.Model):
    """A video of a listing; `position` orders the listing's videos like its photos."""

    id = IdField()
    property = models.ForeignKey(Property, on_delete=models.CASCADE, related_name="videos")
    file = models.FileField(upload_to=media_upload_to, max_length=300)
    title = models.CharField(max_length=200, blank=True, null=True)
    position = models.PositiveIntegerField(default=0)
    content_type = models.CharField(max_length=50, default="video/mp4")
    size = models.PositiveBigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = list(GALLERY_ORDER)
        constraints = [
            models.CheckConstraint(
                condition=Q(position__gte=0), name="media_video_position_non_negative"
            )
        ]
        indexes = [
            models.Index(
                fields=["property", "position", "created_at"], name="media_video_order_idx"
            )
        ]

    def __str__(self) -> str:
        return self.title or self.file.name
