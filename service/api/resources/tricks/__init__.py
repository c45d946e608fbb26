"""The tricks resource."""
