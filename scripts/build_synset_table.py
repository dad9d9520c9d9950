"""Regenerate the packaged synset table ``symplan_core/behavior_data/synset_table.json``.

    symplan data fetch && .venv/bin/python scripts/build_synset_table.py [--check]

Input: ``synsets.csv``, ``output_hierarchy.json`` and ``properties_to_synsets.json`` of the
bddl 3.6.0 sdist, as fetched (and hash-checked) into ``$SYMPLAN_DATA_DIR/b1k``. The table keeps only what the engine
reads: abilities, object type and hypernyms per synset, and the hierarchy's parent map.
bddl is MIT-licensed; its licence text ships next to the table (``LICENSE-bddl.txt``).
``--check`` exits 1 when the packaged table differs from what the inputs give.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from symplan_core.tasks import SYNSET_TABLE, benchmark_dir, derive_synset_table

OUT = Path(__file__).resolve().parents[1] / "symplan_core" / SYNSET_TABLE


def render(doc: dict) -> str:
    """JSON with one synset (and one parent link) per line, so regenerations diff line by line."""
    lines = ["{"]
    for key, value in doc.items():
        if isinstance(value, dict) and key in ("synsets", "parents"):
            rows = [f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in value.items()]
            lines.append(f"  {json.dumps(key)}: {{\n" + ",\n".join(rows) + "\n  },")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)},")
    lines[-1] = lines[-1].rstrip(",")
    return "\n".join(lines) + "\n}\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the packaged table, write nothing")
    args = parser.parse_args()
    root = benchmark_dir("b1k")
    text = render(derive_synset_table(root / "synsets.csv", root / "output_hierarchy.json", root / "properties_to_synsets.json"))
    if args.check:
        same = OUT.is_file() and OUT.read_text() == text
        print(f"{OUT}: {'up to date' if same else 'differs from the inputs'}")
        return 0 if same else 1
    OUT.write_text(text)
    print(f"wrote {OUT} ({len(text) // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
