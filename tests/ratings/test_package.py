"""The ratings package is pure: importing it loads the standard library and openskill, nothing else."""

from __future__ import annotations

import sys

from tests.support.imports import modules_loaded_by


def test_importing_the_ratings_loads_only_the_standard_library_and_openskill() -> None:
    loaded = modules_loaded_by("service.ratings")
    assert "service.ratings.model" in loaded and "openskill" in loaded
    # openskill's wheel is compiled with mypyc and ships its runtime as a top-level "<hash>__mypyc" module.
    outside = {name.partition(".")[0] for name in loaded} - set(sys.stdlib_module_names)
    assert {name for name in outside if not name.endswith("__mypyc")} == {"service", "openskill"}
    assert [name for name in loaded if name.startswith("service.")] == sorted(
        name for name in loaded if name.startswith("service.ratings")
    )
