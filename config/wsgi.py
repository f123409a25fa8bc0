"""WSGI entry point for gunicorn and other WSGI servers."""

import gc
import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application
from django.db import connections
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

application = get_wsgi_application()


def _load_views() -> int:
    """Import every view (and its serializers and filtersets) now, not on the first request."""
    return len(get_resolver().url_patterns)


def _compile_search_shapes() -> int:
    """Compile the public searches' statements of every shape (listings.search_statements),
    on PostgreSQL, where they are used: 2.5 s once, instead of 1.2 ms on the first search of
    each shape, which the workers' first minutes of searches paid."""
    if connections["default"].vendor != "postgresql":
        return 0
    from listings.search_statements import shapes_compile

    return shapes_compile(cap=settings.PROPERTY_LIST_EXACT_COUNT_LIMIT + 1)


# What is loaded by now lives as long as the process: moved out of the garbage collector's
# way (gc.freeze), it is no longer walked by every full collection, which took 68 ms about
# every 1,500 list requests (4.6 ms once frozen; docs/performance.md).
_load_views()
_compile_search_shapes()
gc.collect()
gc.freeze()
