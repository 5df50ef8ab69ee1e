"""``python -m bench.calibration``: run the calibration suite and print (or write) its table."""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

from . import all_checks, markdown_table, run_checks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.calibration", description=__doc__)
    parser.add_argument("--grid", choices=("fast", "full"), default="full", help="which grid of settings")
    parser.add_argument("--reps", type=int, default=None, help="replicates a setting (default: 200 fast, 500 full)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", nargs="*", default=None, help="check names or module suffixes (weat, ceat, ...)")
    parser.add_argument("--write", type=Path, default=None, help="also write the rows as JSON to this file")
    parser.add_argument("--markdown", type=Path, default=None, help="also write the markdown table to this file")
    args = parser.parse_args(argv)
    reps = args.reps or (200 if args.grid == "fast" else 500)
    if reps < 1:
        parser.error("--reps must be at least 1")
    checks = all_checks(args.only)
    if not checks:
        parser.error(f"--only {args.only} matches no check")
    t0 = time.perf_counter()
    rows = run_checks(checks, grid=args.grid, reps=reps, seed=args.seed,
                      progress=lambda s: print(s, file=sys.stderr, flush=True))
    table = markdown_table(rows)
    print(table)
    bad = [r for r in rows if r.ok is False]
    print(f"{len(rows)} rates, {len(bad)} outside their band; {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    if args.write:
        meta = {"grid": args.grid, "reps": reps, "seed": args.seed, "python": platform.python_version()}
        args.write.write_text(json.dumps({"meta": meta, "rows": [r.to_dict() for r in rows]}, indent=1) + "\n")
    if args.markdown:
        args.markdown.write_text(table)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
