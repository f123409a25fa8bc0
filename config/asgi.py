"""ASGI entry point."""

import os

from django.core.asgi import get_asgi_application

from config.loading import freeze_loaded_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

application = get_asgi_application()
freeze_loaded_application()
