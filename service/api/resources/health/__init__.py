"""The health resource."""
