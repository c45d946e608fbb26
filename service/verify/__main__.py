"""Run the folder itself: ``python3 verify record.json`` (this folder copied anywhere) or
``python3 -m service.verify record.json``."""

import importlib
import sys
from pathlib import Path

if __package__:
    from .cli import main
else:  # the folder run as a script: import it as a package by its own name
    folder = Path(__file__).resolve().parent
    sys.path.insert(0, str(folder.parent))
    main = importlib.import_module(f"{folder.name}.cli").main

sys.exit(main())
