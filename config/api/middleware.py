"""Every answer under /api/ is JSON: an error made outside the API's views becomes a problem
document (decisions D5).

The API's views answer their own errors as problem documents (config.api.exceptions). What
reaches a client before or around them is Django's: its 400 page for a host it does not
allow, its 404 and 500 pages (in development, the technical pages of DEBUG), a 405 of a plain
view. Under /api/ such an answer is replaced by the problem document of its status, so a
client of the API never has to read HTML, whatever went wrong and whatever the settings.
"""

from django.http import HttpRequest, HttpResponse

from config.api.exceptions import problem_for_status

API_PREFIX = "/api/"
JSON_TYPES = ("application/json", "application/problem+json")


def _is_json(response: HttpResponse) -> bool:
    content_type = response.get("Content-Type", "").split(";", 1)[0].strip()
    return content_type in JSON_TYPES


class ProblemDocumentsMiddleware:
    """First in MIDDLEWARE, so that it sees the answers the rest of the stack made, errors
    raised by other middleware included."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            response.status_code >= 400
            and request.path.startswith(API_PREFIX)
            and not _is_json(response)
        ):
            return problem_for_status(response.status_code, headers=dict(response.items()))
        return response
