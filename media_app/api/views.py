"""The media endpoints: /images and /videos (interface: Media; decisions D7, D8, D11, D13)."""

from django.conf import settings
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext_lazy
from djangorestframework_camel_case.settings import api_settings as camel_case_settings
from djangorestframework_camel_case.util import underscoreize
from drf_spectacular.utils import (
    OpenApiRequest,
    extend_schema,
    extend_schema_view,
)
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from config.api.fields import id_parameter
from config.api.parsers import PayloadTooLarge
from config.api.permissions import IsOwnerUser
from config.api.throttling import UploadThrottle
from config.api.viewsets import ApiViewSet
from listings.selectors import property_visible_to
from listings.services import property_is_managed_by
from media_app import selectors, services
from media_app.api.serializers import (
    ImageSerializer,
    ImageUploadSerializer,
    ListingReferenceSerializer,
    MediaPatchSerializer,
    VideoSerializer,
    VideoUploadSerializer,
)
from media_app.images import image_upload_limit_set
from media_app.videos import video_upload_limit_set

# Room a multipart body needs beyond its file: boundaries, part headers and the text
# fields, which Django caps at DATA_UPLOAD_MAX_MEMORY_SIZE.
MULTIPART_ALLOWANCE = 64 * 1024

# The formats an upload's file part may be in (D11), as the schema's multipart encoding says:
# they are judged by the bytes, and any other is 415 whatever the part's Content-Type says.
IMAGE_CONTENT_TYPES = "image/jpeg, image/png, image/webp"
VIDEO_CONTENT_TYPES = "video/mp4, video/webm"

PROPERTY_ID_PARAMETER = id_parameter(
    "propertyId", required=True, allow_blank=False, description="The listing whose media to list."
)


def _form(request) -> dict:
    """The multipart fields and files with snake_case names.

    The camelCase parser renames them, but when a session's CSRF check read the form first
    Django parsed it and the names arrive as sent; renaming twice changes nothing.
    """
    return underscoreize(request.data, **camel_case_settings.JSON_UNDERSCOREIZE)


class MediaViewSet(ApiViewSet):
    """What /images and /videos share; subclasses name the model, shapes and services."""

    pagination_class = None
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]
    # Name of the multipart file field, and the upload body's serializer.
    file_field = ""
    upload_serializer_class: type = ImageUploadSerializer

    def get_permissions(self):
        if self.action in ("list", "retrieve"):
            return []
        if self.action == "upload":
            # Only OWNER users and admins may add media: customers are 403 at once.
            return [IsOwnerUser()]
        return [IsAuthenticated()]

    def get_throttles(self):
        throttles = super().get_throttles()
        if self.action == "upload":
            throttles.append(UploadThrottle())
        return throttles

    def initial(self, request, *args, **kwargs):
        # The upload's file limit goes on before authentication: a session's CSRF check
        # reads the multipart form, and the limit must hold while it does.
        if self.action == "upload":
            self.set_upload_limit(request)
        super().initial(request, *args, **kwargs)

    def max_upload_bytes(self) -> int:
        raise NotImplementedError

    def set_upload_limit(self, request) -> None:
        """Refuse the upload's file while it is read, once it passes max_upload_bytes (413)."""
        raise NotImplementedError

    def get_object(self):
        return get_object_or_404(self.get_queryset(), pk=self.kwargs["pk"])

    def _listing(self, data, *, for_write: bool):
        """The listing `propertyId` names, among those the caller may see (else 400 on it)."""
        listings = property_visible_to(viewer=self.request.user)
        if for_write:
            listings = listings.select_related("owner")
        reference = ListingReferenceSerializer(data=data, properties=listings)
        reference.is_valid(raise_exception=True)
        return reference.validated_data["property_id"]

    def _refuse_announced_oversize(self, request) -> None:
        """Refuse an upload whose Content-Length already says too much, unread (413).

        One within it is still held to the limit while it is read (set_upload_limit).
        """
        limit = self.max_upload_bytes()
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > limit + settings.DATA_UPLOAD_MAX_MEMORY_SIZE + MULTIPART_ALLOWANCE:
            raise PayloadTooLarge()

    def list(self, request):
        # Query parameters keep their camelCase names; only the one this list needs is read.
        query = {}
        if "propertyId" in request.query_params:
            query["property_id"] = request.query_params["propertyId"]
        listing = self._listing(query, for_write=False)
        items = self.gallery(listing)
        serializer = self.get_serializer_class()(items, many=True, context={"request": request})
        return Response(serializer.data)

    def retrieve(self, request, pk=None):
        return Response(self.get_serializer(self.get_object()).data)

    @action(detail=False, methods=["post"], url_path="upload")
    def upload(self, request):
        self._refuse_announced_oversize(request)
        form = _form(request)
        listing = self._listing(form, for_write=True)
        # Who may not change the listing learns nothing about the rules of the body.
        if not property_is_managed_by(property=listing, user=request.user):
            raise PermissionDenied(
                gettext_lazy("Only the listing's owner may add photos and videos to it.")
            )
        body = self.upload_serializer_class(data=form)
        body.is_valid(raise_exception=True)
        item = self.perform_upload(
            listing=listing, file=body.validated_data[self.file_field], data=body.validated_data
        )
        return Response(self.get_serializer(item).data, status=status.HTTP_201_CREATED)

    def partial_update(self, request, pk=None):
        item = self.get_object()
        if not property_is_managed_by(property=item.property, user=request.user):
            raise PermissionDenied(
                gettext_lazy("Only the listing's owner may change its photos and videos.")
            )
        body = MediaPatchSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        # An empty body changes nothing and answers the resource as it is (like properties).
        item = self.perform_patch(item, dict(body.validated_data))
        return Response(self.get_serializer(item).data)

    def destroy(self, request, pk=None):
        self.perform_remove(self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    # Hooks of each kind of media.
    def gallery(self, listing):
        raise NotImplementedError

    def perform_upload(self, *, listing, file, data):
        raise NotImplementedError

    def perform_patch(self, item, data: dict):
        raise NotImplementedError

    def perform_remove(self, item) -> None:
        raise NotImplementedError


@extend_schema_view(
    list=extend_schema(
        summary="A listing's photos, in gallery order (the first is the cover)",
        parameters=[PROPERTY_ID_PARAMETER],
        responses=ImageSerializer(many=True),
    ),
    retrieve=extend_schema(summary="A photo", responses=ImageSerializer),
    upload=extend_schema(
        summary="Upload a photo (JPEG, PNG or WebP) to the end of a listing's gallery",
        request={
            "multipart/form-data": OpenApiRequest(
                ImageUploadSerializer, encoding={"image": {"contentType": IMAGE_CONTENT_TYPES}}
            )
        },
        responses={201: ImageSerializer},
    ),
    partial_update=extend_schema(
        summary="Rename a photo and/or move it in the gallery",
        request=MediaPatchSerializer,
        responses=ImageSerializer,
    ),
    destroy=extend_schema(summary="Delete a photo and its files"),
)
class ImageViewSet(MediaViewSet):
    """Photos of listings: anyone reads those of visible listings; their owner writes."""

    serializer_class = ImageSerializer
    file_field = "image"
    upload_serializer_class = ImageUploadSerializer

    def get_queryset(self):
        return selectors.image_visible_to(viewer=self.request.user)

    def max_upload_bytes(self) -> int:
        return settings.MEDIA_IMAGE_MAX_BYTES

    def set_upload_limit(self, request) -> None:
        image_upload_limit_set(request)

    def gallery(self, listing):
        return selectors.image_gallery(property=listing)

    def perform_upload(self, *, listing, file, data):
        return services.image_upload(
            property=listing, by=self.request.user, file=file, title=data.get("title")
        )

    def perform_patch(self, item, data: dict):
        return services.image_update(image=item, by=self.request.user, fields=set(data), **data)

    def perform_remove(self, item) -> None:
        services.image_delete(image=item, by=self.request.user)


@extend_schema_view(
    list=extend_schema(
        summary="A listing's videos, in order",
        parameters=[PROPERTY_ID_PARAMETER],
        responses=VideoSerializer(many=True),
    ),
    retrieve=extend_schema(summary="A video", responses=VideoSerializer),
    upload=extend_schema(
        summary="Upload a video (MP4 or WebM) to the end of a listing's videos",
        request={
            "multipart/form-data": OpenApiRequest(
                VideoUploadSerializer, encoding={"video": {"contentType": VIDEO_CONTENT_TYPES}}
            )
        },
        responses={201: VideoSerializer},
    ),
    partial_update=extend_schema(
        summary="Rename a video and/or move it among the listing's videos",
        request=MediaPatchSerializer,
        responses=VideoSerializer,
    ),
    destroy=extend_schema(summary="Delete a video and its file"),
)
class VideoViewSet(MediaViewSet):
    """Videos of listings: anyone reads those of visible listings; their owner writes."""

    serializer_class = VideoSerializer
    file_field = "video"
    upload_serializer_class = VideoUploadSerializer

    def get_queryset(self):
        return selectors.video_visible_to(viewer=self.request.user)

    def max_upload_bytes(self) -> int:
        return settings.MEDIA_VIDEO_MAX_BYTES

    def set_upload_limit(self, request) -> None:
        video_upload_limit_set(request)

    def gallery(self, listing):
        return selectors.video_gallery(property=listing)

    def perform_upload(self, *, listing, file, data):
        return services.video_upload(
            property=listing, by=self.request.user, file=file, title=data.get("title")
        )

    def perform_patch(self, item, data: dict):
        return services.video_update(video=item, by=self.request.user, fields=set(data), **data)

    def perform_remove(self, item) -> None:
        services.video_delete(video=item, by=self.request.user)
