"""The revisions, oldest first by ``down_revision``."""
