"""The reviews resource."""
