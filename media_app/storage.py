"""The S3 storage of media: django-storages' S3Storage with safe object metadata."""

from storages.backends.s3 import S3Storage

from media_app.files import content_disposition_for, content_type_for


class MediaS3Storage(S3Storage):
    """S3 (or any S3-compatible server) that stores each object with its own type.

    S3Storage would take the ContentType from the uploaded file object, which for an
    upload is what the client claimed (it could say text/html). Here the type and the
    disposition always come from the name the server chose, so S3 serves an image as an
    image and anything unexpected as a download, never as a page (D11).
    """

    def get_object_parameters(self, name: str) -> dict:
        """The configured object parameters plus ContentType and ContentDisposition."""
        parameters = super().get_object_parameters(name)
        parameters["ContentType"] = content_type_for(name)
        parameters["ContentDisposition"] = content_disposition_for(name)
        return parameters
