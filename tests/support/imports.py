"""What importing one package of the service loads, seen from a fresh interpreter (for the purity tests)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def modules_loaded_by(package: str) -> list[str]:
    """The modules a fresh interpreter loads to import ``package`` (say ``service.engine``), sorted.

    A bare stand-in replaces the ``service`` package, whose __init__ wires the web app, so only
    ``package`` and what it imports are loaded.
    """
    code = (
        "import sys, types; before = set(sys.modules); "
        "service = types.ModuleType('service'); service.__path__ = ['service']; sys.modules['service'] = service; "
        f"import {package}; print('\\n'.join(sorted(set(sys.modules) - before)))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return result.stdout.split()
