"""Shapes of the media endpoints (decisions D11)."""

from drf_spectacular.utils import extend_schema_field, inline_serializer
from rest_framework import serializers

from config.api.fields import IdField, IdReferenceField
from config.api.json_types import JSONTypedSerializer
from listings.models import Property
from media_app.files import absolute_media_url, absolute_storage_url
from media_app.images import THUMBNAIL_WIDTHS
from media_app.models import Image, Video

LISTING_NOT_VISIBLE = "No listing you can see has this id."
# Positions a client may ask for; anything past a gallery's end puts the item last.
MAX_POSITION = 10_000

ThumbnailsSchema = inline_serializer(
    name="ImageThumbnails",
    fields={
        str(width): serializers.URLField(help_text=f"WebP copy {width} px wide (or narrower).")
        for width in THUMBNAIL_WIDTHS
    },
)


class ImageSerializer(serializers.ModelSerializer):
    """A photo: `{id, url, title, propertyId, createdAt, width, height, position, thumbnails}`.

    Urls are absolute; `thumbnails` maps each width ("400", "1200") to its WebP copy.
    """

    url = serializers.SerializerMethodField()
    property_id = serializers.CharField(read_only=True)
    thumbnails = serializers.SerializerMethodField()

    class Meta:
        model = Image
        fields = [
            "id",
            "url",
            "title",
            "property_id",
            "created_at",
            "width",
            "height",
            "position",
            "thumbnails",
        ]
        read_only_fields = fields

    def get_url(self, image: Image) -> str:
        return absolute_media_url(self.context.get("request"), image.file)

    @extend_schema_field(ThumbnailsSchema)
    def get_thumbnails(self, image: Image) -> dict[str, str]:
        request = self.context.get("request")
        return {
            width: absolute_storage_url(request, image.thumbnails[width])
            for width in sorted(image.thumbnails, key=int)
        }


class VideoSerializer(serializers.ModelSerializer):
    """A video: `{id, url, title, propertyId, createdAt, position}` (url absolute)."""

    url = serializers.SerializerMethodField()
    property_id = serializers.CharField(read_only=True)

    class Meta:
        model = Video
        fields = ["id", "url", "title", "property_id", "created_at", "position"]
        read_only_fields = fields

    def get_url(self, video: Video) -> str:
        return absolute_media_url(self.context.get("request"), video.file)


class ListingReferenceSerializer(serializers.Serializer):
    """`propertyId` of an upload or a list: a listing the caller may see (else 400 on it)."""

    property_id = IdReferenceField(
        queryset=Property.objects.none(),
        error_messages={
            "does_not_exist": LISTING_NOT_VISIBLE,
            "incorrect_type": LISTING_NOT_VISIBLE,
        },
    )

    def __init__(self, *args, properties=None, **kwargs):
        super().__init__(*args, **kwargs)
        if properties is not None:
            self.fields["property_id"].queryset = properties


class MediaTitleField(serializers.CharField):
    """An optional title, trimmed, up to 200 characters; empty or null clears it."""

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(max_length=200, allow_null=True, allow_blank=True, **kwargs)

    def run_validation(self, data=serializers.empty) -> str | None:
        # CharField answers "" for blank input before to_internal_value; store it as null.
        value = super().run_validation(data)
        return value or None


class ImageUploadSerializer(serializers.Serializer):
    """Multipart body of POST /images/upload: the photo, its listing and an optional title."""

    image = serializers.FileField(allow_empty_file=False, use_url=False)
    property_id = IdField(help_text="The listing the photo belongs to.")
    title = MediaTitleField()


class VideoUploadSerializer(serializers.Serializer):
    """Multipart body of POST /videos/upload: the video, its listing and an optional title."""

    video = serializers.FileField(allow_empty_file=False, use_url=False)
    property_id = IdField(help_text="The listing the video belongs to.")
    title = MediaTitleField()


class MediaPatchSerializer(JSONTypedSerializer):
    """Body of PATCH /images/:id and /videos/:id: any subset of title and position."""

    title = MediaTitleField()
    position = serializers.IntegerField(
        min_value=0,
        max_value=MAX_POSITION,
        required=False,
        help_text="New place in the gallery, from 0 (the cover); past the end means last.",
    )
