"""Serving local media files in development (`make run`): typed, never sniffed, never HTML."""

from django.conf import settings
from django.http import FileResponse, HttpRequest, HttpResponse
from django.views.static import serve

from media_app.files import content_disposition_for, content_type_for


def media_serve(request: HttpRequest, path: str) -> HttpResponse:
    """A file of MEDIA_ROOT with the type of its server-chosen extension and nosniff (D11).

    django.views.static.serve guesses the type from the extension with the mimetypes
    module, which would say text/html for an .html file put there by hand. Here only the
    media types the platform writes are served as themselves; anything else is an
    octet-stream attachment, and X-Content-Type-Options: nosniff stops browsers guessing.
    In production the same holds with S3 (MediaS3Storage) or the web server in front.
    """
    response = serve(request, path, document_root=settings.MEDIA_ROOT)
    response["X-Content-Type-Options"] = "nosniff"
    if isinstance(response, FileResponse):
        response["Content-Type"] = content_type_for(path)
        response["Content-Disposition"] = content_disposition_for(path)
        # A guessed encoding (.gz) would let a browser unpack the bytes into something else.
        if "Content-Encoding" in response:
            del response["Content-Encoding"]
    return response
