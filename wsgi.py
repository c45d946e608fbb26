"""The WSGI entry point: ``gunicorn wsgi:app`` or ``flask --app wsgi run``."""

import sys

from service import SchemaNotMigrated, create_app

try:
    app = create_app()
except SchemaNotMigrated:  # logged by create_app; gunicorn stops on this exit status ("App failed to load")
    sys.exit(4)
