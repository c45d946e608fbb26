"""The hands resource."""
