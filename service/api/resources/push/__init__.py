"""Web Push: the service's VAPID public key, and subscribing your browsers to your feed's events."""
