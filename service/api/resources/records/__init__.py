"""The records resource."""
