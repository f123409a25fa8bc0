"""Every answer under /api/ is a problem document (D5), whoever made it and whatever the
settings: unmatched, malformed and wrong-method paths, a host Django does not allow,
Django's own error pages (in development, DEBUG's technical pages), and error bodies asked
for as HTML through the browsable API.
"""

import json

import pytest
from django.http import HttpResponse
from django.test import Client
from django.urls import include, path
from django.views.decorators.http import require_POST

from config import urls as root_urls
from tests.api.support import assert_problem

pytestmark = pytest.mark.django_db

ODD_PATHS = [
    # percent-encoded control characters and invalid UTF-8, as Schemathesis sends them
    "/api/v1/commercials/%F3%8F%98%9C%0A/",
    "/api/v1/users/%C3%8Au%16/",
    "/api/v1/videos/%20%0A/",
    "/api/v1/properties/%0A",
    "/api/v1/properties/%0D%0A/",
    "/api/v1/categories/%00/",
    "/api/v1/favorites/%FF%FE/",
    "/api/v1/notifications/%E2%80%AE%09/",
    "/api/%C0%AF",
    "/api/v1/%0A/properties",
    "/api/v1/images/%7F%1B[31m/",
    "/api/v1/users/login/%0A",
    "/api/v1/no-such-thing",
    "/api/v2/properties",
]


@pytest.mark.parametrize("debug", [False, True], ids=["production", "development"])
@pytest.mark.parametrize("method", ["get", "post", "patch", "put", "delete"])
@pytest.mark.parametrize("odd_path", ODD_PATHS)
def test_an_unmatched_or_malformed_path_is_a_404_problem(settings, debug, method, odd_path):
    # given the settings of development (technical error pages) or production
    settings.DEBUG = debug
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)

    # when
    response = getattr(client, method)(odd_path)

    # then
    body = assert_problem(response, 404, "not_found")
    assert body["detail"] == "No API endpoint matches this path."


@pytest.mark.parametrize("debug", [False, True], ids=["production", "development"])
def test_a_wrong_method_is_a_405_problem(settings, debug, admin_api):
    settings.DEBUG = debug

    response = admin_api.put("/api/v1/categories")

    body = assert_problem(response, 405, "method_not_allowed")
    assert body["detail"] == 'Method "PUT" not allowed.'
    assert "GET" in response["Allow"]


@pytest.mark.parametrize("debug", [False, True], ids=["production", "development"])
def test_a_host_django_does_not_allow_is_a_400_problem(settings, debug):
    settings.DEBUG = debug
    client = Client(HTTP_HOST="evil.example.com", raise_request_exception=False)

    response = client.get("/api/v1/categories")

    assert_problem(response, 400, "validation_error")


def test_an_error_asked_for_as_html_is_still_a_json_problem(api_client):
    # when a browser asks the browsable API for a listing that does not exist
    response = api_client.get(
        "/api/v1/properties/abcdefghijabcdefghijabcde", HTTP_ACCEPT="text/html"
    )

    # then the body is the JSON problem document its Content-Type announces
    body = assert_problem(response, 404, "not_found")
    assert body["detail"] == "Not found."


def explode(request):
    raise RuntimeError("a bug with secret-detail")


@require_POST
def posts_only(request):
    return HttpResponse("posted")


def too_large(request):
    return HttpResponse("<h1>Too large</h1>", status=413)


def reads_form(request):
    return HttpResponse(f"{len(request.POST)} fields")


# Django views under /api/ that fail in Django's own ways, beside the project's routes.
urlpatterns = [
    path(
        "api/test-only/",
        include(
            [
                path("explode/", explode),
                path("posts-only/", posts_only),
                path("too-large/", too_large),
                path("reads-form/", reads_form),
            ]
        ),
    ),
    *root_urls.urlpatterns,
]
handler404 = root_urls.handler404
handler403 = root_urls.handler403
handler500 = root_urls.handler500


@pytest.fixture
def django_views(settings) -> Client:
    settings.ROOT_URLCONF = __name__
    return Client(raise_request_exception=False)


@pytest.mark.parametrize("debug", [False, True], ids=["production", "development"])
def test_a_bug_outside_the_api_views_is_a_500_problem_without_details(
    settings, django_views, debug
):
    settings.DEBUG = debug

    response = django_views.get("/api/test-only/explode/")

    body = assert_problem(response, 500, "server_error")
    assert body["detail"] == "The server could not complete the request."
    assert "secret-detail" not in response.text
    assert "Traceback" not in response.text


@pytest.mark.parametrize("debug", [False, True], ids=["production", "development"])
def test_a_plain_views_405_is_a_problem_that_keeps_allow(settings, django_views, debug):
    settings.DEBUG = debug

    response = django_views.get("/api/test-only/posts-only/")

    assert_problem(response, 405, "method_not_allowed")
    assert response["Allow"] == "POST"


def test_an_html_413_is_a_problem(django_views):
    response = django_views.get("/api/test-only/too-large/")

    assert_problem(response, 413, "payload_too_large")


@pytest.mark.parametrize("debug", [False, True], ids=["production", "development"])
def test_a_form_body_over_djangos_limit_is_a_400_problem(settings, django_views, debug):
    settings.DEBUG = debug
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100

    response = django_views.post(
        "/api/test-only/reads-form/",
        "name=" + "x" * 200,
        content_type="application/x-www-form-urlencoded",
    )

    assert_problem(response, 400, "validation_error")


def test_answers_outside_api_keep_the_sites_pages(django_views):
    response = django_views.get("/no-such-page/")

    assert response.status_code == 404
    assert response["Content-Type"] == "text/html; charset=utf-8"


def test_json_answers_under_api_are_left_as_they_are(api_client):
    response = api_client.get("/api/v1/categories")

    assert response.status_code == 200
    assert json.loads(response.content) == []
