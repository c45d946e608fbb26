"""The events resource."""
