"""Forms of the website's photo and video page; media_app.services judges every file (D11)."""

from django import forms
from django.utils.translation import gettext_lazy as _


class PhotoUploadForm(forms.Form):
    """Add a photo at the end of the gallery. The bytes decide the format, not the name."""

    # Both upload forms share a page: prefixes keep their field ids apart.
    prefix = "photo"

    file = forms.FileField(
        label=_("Photo (JPEG, PNG or WebP)"),
        widget=forms.ClearableFileInput(attrs={"accept": "image/jpeg,image/png,image/webp"}),
    )
    title = forms.CharField(
        label=_("Description (used as its alternative text)"),
        max_length=200,
        required=False,
        empty_value=None,
    )


class VideoUploadForm(forms.Form):
    """Add a video after the listing's other videos."""

    prefix = "video"

    file = forms.FileField(
        label=_("Video (MP4 or WebM)"),
        widget=forms.ClearableFileInput(attrs={"accept": "video/mp4,video/webm"}),
    )
    title = forms.CharField(label=_("Title"), max_length=200, required=False, empty_value=None)


class PositionForm(forms.Form):
    """Where to move a photo or video: 0 is first (for photos, the cover)."""

    position = forms.IntegerField(min_value=0)
