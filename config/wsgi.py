"""WSGI entry point for gunicorn and other WSGI servers.

Once the application and its URLs are loaded, what the process keeps for its whole life
(modules, settings, URL patterns, model metadata: about 131,000 objects) is set out of the
garbage collector's sight (gc.freeze). What it buys: Python's full collection, which came
about once in 1,500 list requests, examined every one of those objects and stopped the
process for 82 to 112 ms; it now takes 4 to 6 ms, and the collector's time per list request
falls from 0.15-0.19 ms to 0.09-0.12 (1,000,000 listings, in-process, docs/performance.md).
How it stays correct: a frozen object is never freed, so only what lives as long as the
process is frozen: the garbage of loading is collected first, no request has run yet, and
what requests create is collected as before.
"""

import gc
import os
from importlib import import_module

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

application = get_wsgi_application()

# The URLs import every view, serializer and form: loaded here rather than by the first
# request, so that they are frozen with the rest.
import_module(settings.ROOT_URLCONF)
gc.collect()
gc.freeze()
