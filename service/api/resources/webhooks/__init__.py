"""Webhooks: create, list and delete your signed deliveries of your feed's events."""
