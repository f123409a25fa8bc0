"""Local development: debug on, everything embedded."""

from .base import *  # noqa: F403
from .base import env

DEBUG = env.bool("DEBUG", default=True)

# A receiver on this machine (http://127.0.0.1:9000/...) may be registered while developing.
WEBHOOKS_ALLOW_PRIVATE_TARGETS = env.bool("WEBHOOKS_ALLOW_PRIVATE_TARGETS", default=True)
