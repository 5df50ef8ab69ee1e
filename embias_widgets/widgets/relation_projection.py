"""``RelationProjectionWidget``: edit ordered pairs and words, watch RIPA live.

The synced ``pairs`` and ``groups`` traits hold what the user typed (saved with
the notebook's widget state). Every edit reaches Python, which updates its
:class:`~embias_widgets.analysis.relation.study.RelationProjection`, recomputes the
relation vector and every ``RIPA(w) = <w, b>`` (Ethayarajh et al. 2019), and
sends back the points (:meth:`RelationProjectionResult.points`); the front end draws them on an axis
it fits itself (drawing geometry: ``js/lib/scale.js``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import traitlets

from ..analysis.relation import (
    DEFAULT_PAIRS,
    RelationInputError,
    RelationProjection,
    RelationProjectionResult,
)
from ._base import EmbiasWidget, bundle


def _shown(value: Any) -> str:
    """A refused value as the front end sent it (``null``, not Python's ``None``)."""
    return "null" if value is None else repr(value)


class RelationProjectionWidget(EmbiasWidget):
    """A pairs editor and a live plot of words along the relation axis.

    Parameters
    ----------
    pairs
        Ordered pairs (default: Bolukbasi et al. 2016's definitional pairs,
        female first, so positive RIPA points to the female words).
    words
        A list of words, or ``{group: words}`` for coloured rows.
    model
        A registered name, a path, or loaded static vectors.
    """

    _esm = bundle("relation_projection.js")
    _css = bundle("relation_projection.css")
    _ready = False  # no recomputation until __init__ has set both inputs

    pairs = traitlets.List().tag(sync=True)
    """``[[first, second], ...]`` as typed; incomplete pairs are kept and skipped."""
    groups = traitlets.Dict().tag(sync=True)
    """``{group: [word, ...]}``: the words to place on the axis."""
    points = traitlets.List(traitlets.Dict()).tag(sync=True)
    """``[{"word", "group", "ripa"}]``: the pairs' words (groups ``pairs: first/second``) then the words."""
    axis_label = traitlets.Unicode("").tag(sync=True)
    summary = traitlets.Unicode("").tag(sync=True)
    """One line: how many pairs, and how much of their differences ``b`` carries."""
    oov = traitlets.List(traitlets.Dict()).tag(sync=True)
    """``[{"item", "suggestions"}]``: typed words not in the vocabulary."""
    notes = traitlets.List(traitlets.Unicode()).tag(sync=True)
    revision = traitlets.Int(0).tag(sync=True)
    """Incremented after every recomputation."""
    keep_axis = traitlets.Bool(True).tag(sync=True)
    """Keep the axis range across edits (it only grows to fit new points); False: fit every time.
    The front end fits the axis (its "Fit axis" button fits it now); Python sends only the points."""
    model_name = traitlets.Unicode("").tag(sync=True)
    """The model's name (for titles and export file names)."""

    def __init__(
        self,
        pairs: Iterable[Sequence[str]] = DEFAULT_PAIRS,
        words: Iterable[str] | Mapping[str, Iterable[str]] = (),
        *,
        model: Any = "glove-6b-50d",
        **model_options: Any,
    ) -> None:
        super().__init__()
        self.analysis = RelationProjection([], model=model, **model_options)
        self.model_name = str(getattr(self.analysis.model, "name", model if isinstance(model, str) else ""))
        self.result: RelationProjectionResult | None = None
        self.pairs = [list(p) for p in pairs]
        self.groups = dict(words) if isinstance(words, Mapping) else {"words": list(words)}
        self._ready = True
        self.refresh()

    # -- validation at the trait boundary ------------------------------------------
    @traitlets.validate("pairs")
    def _valid_pairs(self, proposal: dict) -> list[list[str]]:
        out = []
        for i, pair in enumerate(proposal["value"]):
            if isinstance(pair, str) or not isinstance(pair, Sequence) or len(pair) != 2:
                raise traitlets.TraitError(
                    f"pairs[{i}] = {pair!r}: each pair must be [first, second], e.g. ['she', 'he']"
                )
            for side, word in zip(("first", "second"), pair, strict=True):
                if not isinstance(word, str):  # null or a number is not a word: never look up "None"
                    raise traitlets.TraitError(
                        f"pairs[{i}] {side} word is {_shown(word)}, not text: type a word (or leave it empty)"
                    )
            out.append([pair[0], pair[1]])
        return out

    @traitlets.validate("groups")
    def _valid_groups(self, proposal: dict) -> dict[str, list[str]]:
        out = {}
        for group, words in proposal["value"].items():
            if isinstance(words, str) or not isinstance(words, Sequence):
                raise traitlets.TraitError(f"groups[{group!r}] must be a list of words, got {words!r}")
            bad = next((w for w in words if not isinstance(w, str)), "")
            if bad != "":
                raise traitlets.TraitError(
                    f"groups[{group!r}] holds {_shown(bad)}, not text: type each word as text"
                )
            out[str(group)] = list(words)
        return out

    @traitlets.observe("pairs", "groups")
    def _edited(self, change: dict) -> None:
        if self._ready:
            self.refresh()

    # -- recomputation ----------------------------------------------------------
    def _complete_pairs(self) -> tuple[list[tuple[str, str]], list[str]]:
        complete, notes = [], []
        for i, (first, second) in enumerate(self.pairs):
            first, second = first.strip(), second.strip()
            if first and second:
                complete.append((first, second))
            elif first or second:
                notes.append(
                    f"pair {i + 1} ({first or '?'} − {second or '?'}) is incomplete: "
                    "fill in both words"
                )
        return complete, notes

    def refresh(self) -> RelationProjectionResult | None:
        """Recompute from ``pairs`` and ``groups``; errors go to ``error``, input is kept."""
        self.busy = True
        complete, notes = self._complete_pairs()
        try:
            self.analysis.set_pairs(complete)
            self.analysis.set_words(self.groups)
            result = self.analysis.run()
        except Exception as err:  # any failure must reach the user, not a log
            if not isinstance(err, RelationInputError):
                err = RelationInputError(f"{type(err).__name__}: {err} (an internal error: please report it)")
            try:
                words = [w for p in complete for w in p] + [w for ws in self.groups.values() for w in ws]
                oov = self.analysis.model.encode(words).oov
            except Exception:
                oov = ()
            with self.hold_sync():
                self.result = None
                self.points, self.summary, self.axis_label = [], "", ""
                self.oov = [{"item": o.item, "suggestions": list(o.suggestions)} for o in oov]
                self.notes = notes
                self.error = str(err) or type(err).__name__
                self.stale = True
                self.busy = False
                self.revision += 1
            return None
        with self.hold_sync():
            self.result = result
            self.points = result.points()
            self.axis_label = result.axis_label
            self.summary = result.summary()
            self.oov = [{"item": o.item, "suggestions": list(o.suggestions)} for o in result.oov]
            self.notes = notes + list(result.notes)
            self.error = ""
            self.stale = False
            self.busy = False
            self.revision += 1
        return result

    def frame(self) -> Any:
        """The latest RIPA table (pandas DataFrame, ``result.frame()``); raises if nothing could be computed."""
        if self.result is None:
            raise RelationInputError(f"nothing computed: {self.error}")
        return self.result.frame()
