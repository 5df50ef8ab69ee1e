"""Join the per-check tables of ``bench/calibration/tables/`` into the file the package ships and the docs show.

    python -m bench.calibration --only weat --write bench/calibration/tables/weat.json   # one check's full grid
    python -m bench.calibration.combine                                                 # all tables -> the two files

Writes ``embias_widgets/calibration.json`` (the report's coverage table reads it) and
``docs/_static/calibration-table.md`` (included by ``docs/calibration.md``), one section a check module.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .core import Row, markdown_table

ROOT = Path(__file__).resolve().parents[2]
TABLES = Path(__file__).resolve().parent / "tables"


def _row(d: dict) -> Row:
    return Row(d["check"], d["setting"], d["key"], d["quantity"], d["estimand"], d["kind"], d["rate"], d["reps"],
               d["mc_error"], tuple(d["band"]) if d["band"] else None, d["ok"], d["seconds"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.calibration.combine", description=__doc__)
    parser.add_argument("--tables", type=Path, default=TABLES)
    parser.add_argument("--json", type=Path, default=ROOT / "embias_widgets" / "calibration.json")
    parser.add_argument("--markdown", type=Path, default=ROOT / "docs" / "_static" / "calibration-table.md")
    args = parser.parse_args(argv)
    files = sorted(args.tables.glob("*.json"))
    if not files:
        parser.error(f"no tables in {args.tables}")
    rows, parts, metas = [], [], {}
    for f in files:
        data = json.loads(f.read_text())
        mine = data["rows"]
        rows += mine
        metas[f.stem] = data["meta"]
        bad = sum(r["ok"] is False for r in mine)
        parts.append(f"### {f.stem}\n\n{data['meta']['reps']} replicates a setting, seed {data['meta']['seed']}, "
                     f"grid {data['meta']['grid']}; {len(mine)} rates, {bad} outside their band.\n\n"
                     + markdown_table([_row(r) for r in mine]))
    meta = {"tables": metas, "regenerate": "python -m bench.calibration.combine (see its docstring)"}
    args.json.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    args.markdown.write_text("\n".join(parts))
    print(f"{len(rows)} rates from {len(files)} tables -> {args.json}, {args.markdown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
