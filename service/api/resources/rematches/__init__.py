"""The rematches resource."""
