"""The players resource: identities across games, their keys, profiles and games."""
