"""The WSGI entry point: ``gunicorn wsgi:app`` or ``flask --app wsgi run``."""

import sys

from service import SchemaNotMigrated, create_app
from service.config import ConfigError

try:
    app = create_app()
except ConfigError as error:  # a bad setting: one line naming it (under gunicorn, its on_starting said so first)
    print(f"wsgi.py: {error}", file=sys.stderr, flush=True)
    sys.exit(4)
except SchemaNotMigrated:  # logged by create_app; gunicorn stops on this exit status ("App failed to load")
    sys.exit(4)
