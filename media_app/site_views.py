"""Website pages of a listing's photos and videos, in the owner area.

(media_app.views serves local media files; these are the owner's pages.) Every upload,
move and deletion is a media_app.services call: formats, sizes, limits and who may are
decided there (D7, D11, D13). An upload also keeps the API's limits on the request itself:
the same per-user rate (429) and the same file size, enforced while the body is read (413).
"""

from collections.abc import Callable
from dataclasses import dataclass

from django import forms
from django.contrib import messages
from django.db import models
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_GET, require_POST

from config.api.throttling import UploadThrottle, page_request_wait
from config.errors import DomainError
from config.uploads import FileTooLarge
from config.website import owner_required
from listings.views import owned_listing
from media_app import services
from media_app.forms import PhotoUploadForm, PositionForm, VideoUploadForm
from media_app.images import image_upload_limit_set
from media_app.models import Image, Video
from media_app.selectors import image_gallery, video_gallery
from media_app.videos import video_upload_limit_set

TOO_MANY_UPLOADS = gettext_lazy("Too many uploads. Try again in %(seconds)s seconds.")


@dataclass(frozen=True)
class Gallery:
    """The photos or the videos of a listing: their model, services, form and wording."""

    model: type[models.Model]
    # The keyword the services take the item by: image_update(image=...), video_delete(video=...)
    keyword: str
    upload: Callable
    update: Callable
    delete: Callable
    form_class: type[forms.Form]
    # What the page says once one was added, and once one was deleted.
    added: str
    deleted: str
    # Puts the kind's file size limit on a request, before its body is read.
    set_upload_limit: Callable


GALLERIES = {
    "photos": Gallery(
        Image,
        "image",
        services.image_upload,
        services.image_update,
        services.image_delete,
        PhotoUploadForm,
        gettext_lazy("Photo added."),
        gettext_lazy("Photo deleted."),
        image_upload_limit_set,
    ),
    "videos": Gallery(
        Video,
        "video",
        services.video_upload,
        services.video_update,
        services.video_delete,
        VideoUploadForm,
        gettext_lazy("Video added."),
        gettext_lazy("Video deleted."),
        video_upload_limit_set,
    ),
}


def _page(request, listing, *, forms_by_kind=None, refusals=None, status=200) -> HttpResponse:
    """The media page; `refusals` says by kind why an upload was refused before its form
    could be read (too many uploads, a file too large)."""
    forms_by_kind = forms_by_kind or {}
    refusals = refusals or {}
    context = {
        "listing": listing,
        "photos": list(image_gallery(property=listing)),
        "videos": list(video_gallery(property=listing)),
        "photo_form": forms_by_kind.get("photos") or PhotoUploadForm(),
        "video_form": forms_by_kind.get("videos") or VideoUploadForm(),
        "photo_refusal": refusals.get("photos"),
        "video_refusal": refusals.get("videos"),
    }
    return render(request, "media_app/manage.html", context, status=status)


@owner_required
@require_GET
def manage(request: HttpRequest, pk: str) -> HttpResponse:
    """A listing's photos and videos in gallery order, with upload, move and delete forms."""
    return _page(request, owned_listing(request, pk))


# Exempt from the CSRF middleware, which would read the form before the size limit is on;
# _upload_form checks CSRF itself once it is (Django's "Modifying upload handlers on the fly").
@csrf_exempt
@owner_required
@require_POST
def upload(request: HttpRequest, pk: str, kind: str) -> HttpResponse:
    """Upload a photo (image_upload) or a video (video_upload) at the end of its gallery.

    The API's upload rate is checked first, counted with the API's uploads (429, the body
    unread); then the file is read under its kind's size limit (413 as soon as it passes).
    """
    listing = owned_listing(request, pk)
    gallery = GALLERIES[kind]
    # The upload throttle reads no body: `data` is given so that the form stays unread.
    wait = page_request_wait(request, [UploadThrottle], data={})
    if wait is not None:
        refusal = TOO_MANY_UPLOADS % {"seconds": wait}
        response = _page(request, listing, refusals={kind: refusal}, status=429)
        response["Retry-After"] = str(wait)
        return response
    gallery.set_upload_limit(request)
    try:
        return _upload_form(request, listing, kind)
    except FileTooLarge as error:
        return _page(request, listing, refusals={kind: error.detail}, status=413)


@csrf_protect
def _upload_form(request: HttpRequest, listing, kind: str) -> HttpResponse:
    """The upload form read (CSRF checked) and handed to the gallery's upload service."""
    gallery = GALLERIES[kind]
    form = gallery.form_class(request.POST, request.FILES)
    if not form.is_valid():
        return _page(request, listing, forms_by_kind={kind: form}, status=400)
    try:
        gallery.upload(property=listing, by=request.user, **form.cleaned_data)
    except DomainError as error:
        # A refused file (format 415, size 413, gallery full 409) is the file field's error.
        form.add_error("file", error.detail)
        return _page(request, listing, forms_by_kind={kind: form}, status=error.status_code)
    messages.success(request, gallery.added)
    return redirect("media:manage", pk=listing.pk)


def _item(listing, gallery: Gallery, item_id: str) -> models.Model:
    """A photo or video of this listing (with its listing's owner for the service), else 404."""
    items = gallery.model.objects.select_related("property__owner")
    return get_object_or_404(items, pk=item_id, property=listing)


@owner_required
@require_POST
def move(request: HttpRequest, pk: str, kind: str, item_id: str) -> HttpResponse:
    """Put a photo or video at another place (image_update / video_update with a position)."""
    listing = owned_listing(request, pk)
    gallery = GALLERIES[kind]
    item = _item(listing, gallery, item_id)
    form = PositionForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose a valid position."))
        return redirect("media:manage", pk=listing.pk)
    try:
        gallery.update(
            **{gallery.keyword: item},
            by=request.user,
            fields={"position"},
            position=form.cleaned_data["position"],
        )
    except DomainError as error:
        messages.error(request, error.detail)
    else:
        messages.success(request, _("Order saved."))
    return redirect("media:manage", pk=listing.pk)


@owner_required
@require_POST
def delete(request: HttpRequest, pk: str, kind: str, item_id: str) -> HttpResponse:
    """Delete a photo or video (image_delete / video_delete); the others close up."""
    listing = owned_listing(request, pk)
    gallery = GALLERIES[kind]
    item = _item(listing, gallery, item_id)
    try:
        gallery.delete(**{gallery.keyword: item}, by=request.user)
    except DomainError as error:
        messages.error(request, error.detail)
    else:
        messages.success(request, gallery.deleted)
    return redirect("media:manage", pk=listing.pk)
