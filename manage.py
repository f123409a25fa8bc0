#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    # Production unless another module is named: a command started on a server without the
    # variable must not run with DEBUG, a known secret and private webhook targets allowed.
    # Development names config.settings.dev (the Makefile exports it; README).
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
