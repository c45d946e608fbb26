"""The API's resources, one package each: ``routes.py`` (a flask-smorest Blueprint of MethodViews)
and ``schemas.py`` (its own request and response schemas; shared ones are in ``api/schemas.py``)."""
