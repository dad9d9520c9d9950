"""Eval tests: make the shared helpers in ``responses.py`` importable."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # for `responses`
