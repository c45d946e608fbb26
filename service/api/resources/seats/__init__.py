"""The seats resource."""
