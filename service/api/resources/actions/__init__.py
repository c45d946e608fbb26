"""The actions resource."""
