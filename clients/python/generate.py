"""Write the generated part of ``coins_client`` from the service's ``openapi.yaml``.

openapi-python-client (pinned below, as in .ci/contract.sh) writes the REST client: ``client.py``,
``errors.py``, ``types.py``, ``api/`` and ``models/``. Those files are not committed (.gitignore):
this script writes them into ``src/coins_client/`` beside the hand-written modules (``__init__.py``,
``events.py``, ``sse.py``), then ``python -m build clients/python`` packs both.

    python clients/python/generate.py                  # from openapi.yaml at the repository's root
    python clients/python/generate.py --spec other.yaml --into /tmp/coins_client
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SPEC = HERE.parents[1] / "openapi.yaml"
PACKAGE = HERE / "src" / "coins_client"
GENERATOR = "openapi-python-client==0.29.1"
GENERATED = ("api", "models", "client.py", "errors.py", "types.py")


def generate(spec: Path = SPEC, into: Path = PACKAGE) -> None:
    """Generate from ``spec`` and put the generated files into the package directory ``into``."""
    binary = Path(sys.executable).with_name("openapi-python-client")
    if not binary.exists():
        sys.exit(f"{binary} is missing: pip install '{GENERATOR}'")
    # The generator formats its output with ruff (its post hooks): the ruff beside this Python.
    env = {**os.environ, "PATH": f"{binary.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    with tempfile.TemporaryDirectory() as work:
        output = Path(work) / "coins_client"
        command = [str(binary), "generate", "--path", str(spec), "--output-path", str(output)]
        command += ["--meta", "none", "--config", str(HERE / "generator.yaml")]
        result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        log = result.stdout + result.stderr
        if result.returncode != 0 or any(word in log.lower() for word in ("warning", "error", "skipping")):
            sys.exit(f"openapi-python-client did not generate cleanly:\n{log}")
        into.mkdir(parents=True, exist_ok=True)
        for name in GENERATED:
            target = into / name
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
            shutil.move(output / name, target)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", type=Path, default=SPEC, help="the OpenAPI document (default: %(default)s)")
    parser.add_argument("--into", type=Path, default=PACKAGE, help="the package directory (default: %(default)s)")
    arguments = parser.parse_args()
    generate(arguments.spec, arguments.into)


if __name__ == "__main__":
    main()
