"""Production: the base settings with secrets required and security tightened."""

from .base import *  # noqa: F403
from .base import env

DEBUG = False
SECRET_KEY = env("SECRET_KEY")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS")

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=True)

# Static files served by the web server itself from STATIC_ROOT (collectstatic), before any
# other work is done (WhiteNoise, placed after SecurityMiddleware as its documentation says).
# Pages and API answers are compressed when the client accepts it (GZipMiddleware, outermost
# so that it compresses what every other middleware wrote; Django pads its output against
# BREACH). WhiteNoise serves its own precompressed copies of static files.
MIDDLEWARE = [
    "django.middleware.gzip.GZipMiddleware",
    *MIDDLEWARE,  # noqa: F405
]
MIDDLEWARE.insert(
    MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1,
    "whitenoise.middleware.WhiteNoiseMiddleware",
)
# Static files under names that carry a hash of their content, with gzip and Brotli copies
# made by collectstatic; WhiteNoise serves them with a year's Cache-Control (docs/deployment.md).
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# JSON only: the browsable API is a development tool (its pages show the signed-in user).
REST_FRAMEWORK = {
    **REST_FRAMEWORK,  # noqa: F405
    "DEFAULT_RENDERER_CLASSES": ["djangorestframework_camel_case.render.CamelCaseJSONRenderer"],
}
