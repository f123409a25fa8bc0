"""The project's routes plus local media serving, for the live server of the browser tests.

The test settings run with DEBUG off, where config.urls leaves media to S3 or a web server;
the browser must still load the photos it uploaded, through the same typed view `make run`
uses.
"""

from django.conf import settings
from django.urls import path

from config import urls as project_urls
from media_app.views import media_serve

urlpatterns = [
    path(f"{settings.MEDIA_URL.strip('/')}/<path:path>", media_serve),
    *project_urls.urlpatterns,
]
handler404 = project_urls.handler404
handler403 = project_urls.handler403
handler500 = project_urls.handler500
