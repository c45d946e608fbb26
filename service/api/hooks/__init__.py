"""The HTTP hooks, together: what runs around every view (security headers, early refusals of
malformed input, CORS, rate limits). ``create_app`` registers them, in the order its comments give."""
