"""One palette for the widgets and the altair charts, so a set or group has one colour everywhere.

The colours live in ``palette.json`` beside this module; the front end imports
the same file (``js/lib/palette.js``), so the widget and the chart of one
result cannot disagree. Every colour reads on JupyterLab Light and Dark (at
least 3:1 against white, #111111 and #212121: WCAG 2.1, 1.4.11 non-text
contrast), checked by ``tests/test_palette.py``.

Roles:

- ``SET_COLORS``: the four sets of an association test (targ1 = X, targ2 = Y,
  attr1 = A, attr2 = B; Caliskan et al. 2017).
- ``PAIR_COLORS``: the first and second words of the ordered pairs of a
  relation projection; other word groups take ``CATEGORICAL`` in order
  (:func:`group_colors`).
- ``LIKELIHOOD_COLORS``: the stereotypical and anti-stereotypical side of a
  sentence pair (Nangia et al. 2020).
- ``SIGN_COLORS``: a signed effect size (positive, negative).
- ``COLOR_NAMES``: what legends and notebook text call each colour, so the words
  match what is drawn (the pairs' crimson and grey dots).

The pair colours are told apart from each other and from the first four group
colours by a colour difference (CIEDE2000, Sharma, Wu & Dalal 2005) of at least 20.

This module imports nothing from the package, so the analysis layer can use
it without importing widgets; altair is imported only by :func:`altair_scale`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from importlib import resources
from typing import Any

_DATA: dict[str, Any] = json.loads(resources.files(__package__).joinpath("palette.json").read_text(encoding="utf-8"))

CATEGORICAL: tuple[str, ...] = tuple(_DATA["categorical"])
SET_COLORS: dict[str, str] = dict(_DATA["sets"])
PAIR_COLORS: dict[str, str] = dict(_DATA["pairs"])
LIKELIHOOD_COLORS: dict[str, str] = dict(_DATA["likelihood"])
SIGN_COLORS: dict[str, str] = dict(_DATA["sign"])
COLOR_NAMES: dict[str, str] = dict(_DATA["names"])
"""The word for each colour (``"#7d7d7d": "grey"``), as the widget legends and the notebooks say it."""


def color_name(colour: str) -> str:
    """The word for a palette colour (``"crimson"``); the hex code itself for a colour without a name."""
    return COLOR_NAMES.get(colour.lower(), colour)


def group_colors(groups: Iterable[str]) -> dict[str, str]:
    """Colour of each word group, in order: the pair groups keep theirs, the others take ``CATEGORICAL``.

    The same rule as ``groupColors`` in ``js/lib/palette.js``.
    """
    out: dict[str, str] = {}
    i = 0
    for g in groups:
        if g in out:
            continue
        if g in PAIR_COLORS:
            out[g] = PAIR_COLORS[g]
        else:
            out[g] = CATEGORICAL[i % len(CATEGORICAL)]
            i += 1
    return out


def altair_scale(colors: Mapping[str, str]) -> Any:
    """``alt.Scale(domain=..., range=...)`` mapping each label of ``colors`` to its colour."""
    import altair as alt

    return alt.Scale(domain=list(colors), range=list(colors.values()))


def set_colors(categories: Mapping[str, str], keys: Iterable[str] = ("targ1", "targ2")) -> dict[str, str]:
    """``{category name: colour}`` for the given set keys (the colour belongs to the set's role)."""
    return {categories[k]: SET_COLORS[k] for k in keys}
