"""Names, types and public URLs of stored media files.

Every file the platform stores is named by the server (`properties/<propertyId>/images/
<imageId>.<ext>`), so its extension is one the server chose from the bytes. The type a file
is served with comes from that extension, never from what a client said (D11).
"""

import posixpath
import urllib.parse

from django.conf import settings
from django.core.files.storage import default_storage
from django.db.models.fields.files import FieldFile

# Content type of each extension the platform writes.
CONTENT_TYPES = {
    "jpg": "image/jpeg",
    "png": "image/png",
    "webp": "image/webp",
    "mp4": "video/mp4",
    "webm": "video/webm",
}
# Anything else (a stray file put there by hand) is served as bytes to download, never shown.
FALLBACK_CONTENT_TYPE = "application/octet-stream"

# Root of every media file; the orphan finder walks only this folder.
MEDIA_PREFIX = "properties"


def media_file_name(
    *, property_id: str, folder: str, object_id: str, extension: str, variant: str = ""
) -> str:
    """`properties/<propertyId>/<folder>/<objectId>[_<variant>].<extension>`."""
    suffix = f"_{variant}" if variant else ""
    return f"{MEDIA_PREFIX}/{property_id}/{folder}/{object_id}{suffix}.{extension}"


def _extension(name: str) -> str:
    base = posixpath.basename(name)
    return base.rsplit(".", 1)[-1].lower() if "." in base else ""


def content_type_for(name: str) -> str:
    """The type a stored file is served with, from the extension the server gave it."""
    return CONTENT_TYPES.get(_extension(name), FALLBACK_CONTENT_TYPE)


def content_disposition_for(name: str) -> str:
    """Known media is shown inline; anything else is only ever downloaded."""
    base = posixpath.basename(name).replace('"', "")
    kind = "inline" if _extension(name) in CONTENT_TYPES else "attachment"
    return f'{kind}; filename="{base}"'


def absolute_storage_url(request, name: str) -> str:
    """The URL of a stored file, absolute (D11): S3 URLs already are; local ones get the host."""
    url = default_storage.url(name)
    if request is None or url.startswith(("http://", "https://")):
        return url
    return request.build_absolute_uri(url)


def site_media_url(name: str) -> str:
    """The absolute URL of a stored file outside a request (event payloads): S3 URLs already
    are; local ones start with the platform's public address, SITE_URL."""
    return urllib.parse.urljoin(settings.SITE_URL, default_storage.url(name))


def absolute_media_url(request, file: FieldFile) -> str:
    """The file's URL, absolute (D11): S3 URLs already are; local ones get the request's host."""
    url = file.url
    if request is None or url.startswith(("http://", "https://")):
        return url
    return request.build_absolute_uri(url)
