"""The games resource."""
