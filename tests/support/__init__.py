"""Tooling shared by the tests and bench/: no tests here, and nothing the service ships."""
