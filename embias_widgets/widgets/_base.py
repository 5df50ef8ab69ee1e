"""What every widget shares: where the bundled front-end modules live, and the one trait boundary.

The rule for input that reaches a widget: a value is checked where it enters,
by the trait's ``@traitlets.validate`` method, and

- set from Python, an invalid value raises :class:`traitlets.TraitError` naming the trait, the value
  and the fix; the trait keeps its previous valid value;
- sent by the front end (:meth:`EmbiasWidget.set_state`), an invalid value is refused the same way,
  but nothing the user typed is lost: the trait keeps its previous valid value (and the front end's
  copy is set back to it, so inputs, chips, exports and traits agree), while the refused value and
  the reason go to the synced ``refused`` trait and the ``error`` line, and ``stale`` marks the
  numbers on screen as belonging to the previous input. The entry leaves ``refused`` once that trait
  receives a valid value.

A recompute that fails sets ``error`` and ``stale`` (each widget's own recompute does this); the front
end (``js/lib/ui.js``, ``errorState(...).show(model)``) shows ``error`` and every refused input as text
and clears or greys the old numbers while ``error`` or ``stale`` is set.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anywidget
import traitlets

STATIC = Path(__file__).resolve().parent.parent / "static"
REFUSABLE_ERRORS = (traitlets.TraitError, ValueError, KeyError, TypeError)
"""What a trait validator may raise for a bad value (``TraitError`` is the norm)."""
_SHOWN_CHARS = 200


def bundle(name: str) -> Path:
    """Path of ``static/<name>``; a missing bundle is a clear error with the fix."""
    path = STATIC / name
    if not path.exists():
        raise FileNotFoundError(
            f"front-end bundle {path} is missing: run `npm install && npm run build` in the "
            "repository root (pip install . does this for you)"
        )
    return path


def reason_of(err: BaseException) -> str:
    """The message of a refused value's error (a ``KeyError``'s without the quotes of its repr)."""
    if isinstance(err, KeyError) and type(err).__str__ is KeyError.__str__ and err.args:
        return str(err.args[0])
    return str(err) or type(err).__name__


def refusal_message(name: str, value: Any, reason: str) -> str:
    """``Refused <name> = <value as typed>: <reason>. ...``: what the error line says for a refused input."""
    try:
        shown = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        shown = repr(value)
    if len(shown) > _SHOWN_CHARS:
        shown = shown[: _SHOWN_CHARS - 1] + "…"
    return f"Refused {name} = {shown}: {reason.rstrip('.')}. The previous value is kept; fix the input and try again."


class EmbiasWidget(anywidget.AnyWidget):
    """An anywidget with the house rule for bad input at its trait boundary (see the module docstring).

    Subclasses declare their traits with ``@traitlets.validate`` methods that raise
    :class:`traitlets.TraitError`; they set ``error`` and ``stale`` when a recompute fails and clear both
    when one succeeds.
    """

    error = traitlets.Unicode("").tag(sync=True)
    """Why the last recompute failed, or which input was refused and why (shown as text)."""
    stale = traitlets.Bool(False).tag(sync=True)
    """The numbers held belong to a previous input (a failed recompute or a refused input): the
    front end clears or greys them. The next successful recompute resets it."""
    refused = traitlets.Dict().tag(sync=True)
    """``{trait: {"value": what the front end sent, "reason": why, "message": the error line}}``: inputs
    refused at the trait boundary, kept so the user can see and fix what they typed. An entry is
    dropped once its trait receives a valid value."""

    busy = traitlets.Bool(False).tag(sync=True)
    """True while Python recomputes: the front end dims the numbers shown (they are the previous input's)
    and shows a progress indicator until it is False again."""

    _BOUNDARY_TRAITS = frozenset({"error", "stale", "refused", "busy"})
    _before_refusal: tuple[str, bool] | None = None
    """``(error, stale)`` before the outstanding refusals, restored once they are fixed; ``None`` when
    something else (a recompute) has set ``error`` or ``stale`` since."""
    _refusing = False

    def set_state(self, sync_data: dict[str, Any]) -> None:
        """Apply a front-end edit: valid values as usual, invalid ones refused one by one (see module)."""
        accepted: dict[str, Any] = {}
        refused: dict[str, dict[str, Any]] = {}
        traits = self.traits()
        for name, value in sync_data.items():
            if name not in self.keys:
                accepted[name] = value  # not a synced trait: ipywidgets ignores it
                continue
            # every synced trait, the boundary ones too: one bad key (``"busy": "x"``) must not raise
            # into the message handler and roll back the valid edits sent with it
            from_json = self.trait_metadata(name, "from_json", self._trait_from_json)
            try:
                traits[name]._validate(self, from_json(value, self))
            except REFUSABLE_ERRORS as err:
                reason = reason_of(err)
                refused[name] = {"value": value, "reason": reason, "message": refusal_message(name, value, reason)}
            else:
                accepted[name] = value
        if accepted:
            before = dict(self.refused)
            super().set_state(accepted)
            # a valid value, even an unchanged one, fixes a refused input (not one an observer just refused)
            self._forget_refused([n for n in accepted if n in before and self.refused.get(n) is before[n]])
        if refused:
            self.refuse(refused)

    def refuse(self, refused: dict[str, dict[str, Any]]) -> None:
        """Record refused inputs: ``refused`` and ``error`` name them, ``stale`` marks the old numbers,
        and the front end's copies of those traits are set back to the kept values."""
        before = self._before_refusal if self.refused else (self.error, self.stale)
        with self._own_writes():
            self.error = " ".join(r["message"] for r in refused.values())
            self.stale = True
            self.refused = {**self.refused, **refused}
        self._before_refusal = before
        self.send_state(key=list(refused))

    @contextlib.contextmanager
    def _own_writes(self) -> Iterator[None]:
        self._refusing = True
        try:
            with self.hold_sync():
                yield
        finally:
            self._refusing = False

    def _forget_refused(self, names: Any) -> None:
        gone = [n for n in names if n in self.refused]
        if not gone:
            return
        before = self._before_refusal
        left = {k: v for k, v in self.refused.items() if k not in gone}
        with self._own_writes():
            if not left and before is not None:  # nothing recomputed meanwhile: back to before
                self.error, self.stale = before
            elif self.error.startswith("Refused "):  # the error line still names refused input: name what is left
                self.error = " ".join(r["message"] for r in left.values())
            self.refused = left  # last: its observers (an explorer's recompute) have the final word
        self._before_refusal = before if left else None

    def notify_change(self, change: Any) -> None:
        """After a trait changes to a (validated) value, drop its refused entry (unless an observer of
        the change refused it anew)."""
        name = change["name"]
        if name in ("error", "stale") and not self._refusing:
            self._before_refusal = None  # a recompute spoke since the refusal: its state stands
        # error/stale/refused are written by the refusal itself; busy (Python's) is fixed by its next value
        had = None if name in self._BOUNDARY_TRAITS - {"busy"} else self.refused.get(name)
        super().notify_change(change)
        if had is not None and change["type"] == "change" and self.refused.get(name) is had:
            self._forget_refused([name])
