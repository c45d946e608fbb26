"""The base of every use case's errors: ``code`` is the stable identifier the API reports."""

from __future__ import annotations

__all__ = ["ServiceError"]


class ServiceError(Exception):
    """Base of the use-case errors; ``code`` is the stable identifier the API reports.

    Every subclass names its own code; the base's is ``internal_error``, so one raised bare
    (a bug) is reported as such rather than breaking the error handler."""

    code = "internal_error"

    def members(self) -> dict[str, str]:
        """The problem's extension members beside its code (RFC 9457 §3.2), each named in the spec's
        ``Problem`` schema: what a client needs to act on the error without reading its prose."""
        return {}
