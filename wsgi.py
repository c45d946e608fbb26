"""The WSGI entry point: ``gunicorn wsgi:app`` or ``flask --app wsgi run``."""

from service import create_app

app = create_app()
