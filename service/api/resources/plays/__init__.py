"""The plays resource."""
