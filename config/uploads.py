"""Size limits on the files of multipart bodies, enforced while the body is read (D13).

Django spools every file part of a multipart body to memory or a temporary file, with no
limit of its own (DATA_UPLOAD_MAX_MEMORY_SIZE counts the text fields only). The handler
here runs before Django's two: it counts each file part's bytes as they arrive and raises
FileTooLarge as soon as one passes its limit, so no more than the limit is ever kept and the
rest of the body is never read.

FILE_UPLOAD_HANDLERS installs it on every request with UPLOAD_FILE_MAX_BYTES (the largest
media upload). A view that knows what it takes puts a stricter one first, before anything
reads the body: the media uploads do, with the photo or video limit.
"""

from django.conf import settings
from django.core.exceptions import BadRequest
from django.core.files.uploadhandler import FileUploadHandler


class FileTooLarge(BadRequest):
    """A file part of a multipart body passed its limit while it was read (413).

    A BadRequest, so that outside the views that catch it Django answers with handler400,
    which turns this one into a 413 (config.website.bad_request); the API's exception handler
    answers a 413 problem document.
    """

    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


class FileSizeLimitHandler(FileUploadHandler):
    """Stops reading a multipart body as soon as one of its files passes `limit` bytes.

    `noun` names the file in the message ("An image may be at most 10485760 bytes.").
    It keeps nothing itself: the chunks go on to the handlers after it.
    """

    def __init__(self, request=None, *, limit: int | None = None, noun: str = "A file"):
        super().__init__(request)
        self.limit = settings.UPLOAD_FILE_MAX_BYTES if limit is None else limit
        self.noun = noun

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        if start + len(raw_data) > self.limit:
            raise FileTooLarge(f"{self.noun} may be at most {self.limit} bytes.")
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None


def upload_limit_set(request, *, limit: int, noun: str) -> None:
    """Put a stricter file limit first on this request; before anything reads its body."""
    request.upload_handlers.insert(0, FileSizeLimitHandler(request, limit=limit, noun=noun))
