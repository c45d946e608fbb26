"""The hints resource."""
