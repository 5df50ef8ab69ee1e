"""``embias data fetch|list``: the command line of the data fetcher (:mod:`embias_widgets.data`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..data import DATASETS, URL_BASE, default_dest, fetch, registry


def add_data(sub: argparse._SubParsersAction) -> None:
    """Add ``embias data fetch|list`` to the ``embias`` command line."""
    p = sub.add_parser("data", help="download the published data sets the tests and examples use",
                       description="Download CrowS-Pairs, StereoSet dev, the sent-bias test files, the "
                       "WEAT/Bolukbasi word lists and BBQ from their original locations, verified against pinned "
                       "hashes.")
    p.add_argument("action", choices=("fetch", "list"), help="fetch the data sets, or list them with licences")
    p.add_argument("names", nargs="*", metavar="NAME", help=f"data sets to fetch (default: all): {', '.join(DATASETS)}")
    p.add_argument("--dest", default=None, metavar="DIR",
                   help="where to put them (default: $EMBIAS_DATA, else $EMBIAS_CACHE/data, "
                   "else ~/.cache/embias-widgets/data; the tests look there)")
    p.add_argument("--url-base", default=None, metavar="URL",
                   help=f"a mirror of {URL_BASE} (default: $EMBIAS_DATA_URL, else {URL_BASE})")
    p.set_defaults(run=run_data)


def run_data(args: argparse.Namespace, out: Any) -> int:
    """``embias data``: fetch or list."""
    if args.action == "list":
        files = registry()
        for d in DATASETS.values():
            n = sum(f.dataset == d for f in files)
            out.write(f"{d.name:<11} {n:>3} file(s)  {d.licence}\n            {d.citation}\n")
        out.write(f"destination: {default_dest() if args.dest is None else args.dest}\n")
        return 0
    status = fetch(args.names, dest=args.dest, url_base=args.url_base, log=out)
    dest = default_dest() if args.dest is None else Path(args.dest).expanduser()
    out.write(f"{sum(s == 'downloaded' for s in status.values())} downloaded, "
              f"{sum(s == 'present' for s in status.values())} already there, all verified, in {dest}\n")
    for name in args.names or DATASETS:
        out.write(f"licence of {name}: {DATASETS[name].licence}\n")
    return 0
