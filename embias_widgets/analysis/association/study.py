"""``AssociationTest``: a WEAT/SEAT study held in the kernel.

Holds the four sets, a model and the options; :meth:`AssociationTest.run`
encodes what it has not seen before (one cache per test object), calls the
metric core and returns an :class:`~embias_widgets.analysis.association.result.AssociationTestResult`
with the numbers, the per-word associations, what was dropped and why.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ...metrics import cosine_matrix, permutation, weat
from ...metrics.attribute_noise import attribute_noise_share
from ...metrics.bootstrap import association_intervals_from_cosines
from ...metrics.permutation import first_block_samples
from ...metrics.samplers import DEFAULT_SAMPLER
from ...models import OutOfVocabulary, load_model
from ...stimuli import SET_KEYS, AssociationTestSpec, WordSet, resolve_test
from ...stimuli.association_tests import duplicates_note
from .merging import MergedItems, merge_same_vectors
from .result import AssociationTestResult
from .robustness import DEFAULT_RESAMPLES
from .story import attribute_noise_notes, calibration_notes
from .validation import SET_ROLES, AssociationInputError, check_study_options, clean_set, options_string


class AssociationTest:
    """A WEAT (word vectors) or SEAT (sentence encoder) study.

    Parameters
    ----------
    test
        A bundled test name (``"weat1"``), a path to a sent-bias test file, or
        an :class:`AssociationTestSpec`. Sets given as keywords replace its sets.
    targ1, targ2, attr1, attr2
        Items (or ``(category, items)``) for each set.
    model
        A registered name (default ``"glove-6b-50d"``), a path, or a loaded model.
    variant, ddof, n_samples, alternative, method, sampler
        Options of :func:`embias_widgets.metrics.weat` (``sampler``: the
        default ``"auto"`` is the fastest exactly uniform sampler for the
        sizes; ``"keys"`` reproduces the draws of older seeds).
    seed
        Seed for sampled permutations and bootstrap; the same seed gives the
        same p-value.
    model_options
        Passed to :func:`embias_widgets.models.load_model` (e.g. ``lowercase``).
    """

    def __init__(
        self,
        test: str | AssociationTestSpec | None = None,
        *,
        targ1: Iterable[str] | tuple[str, Iterable[str]] | None = None,
        targ2: Iterable[str] | tuple[str, Iterable[str]] | None = None,
        attr1: Iterable[str] | tuple[str, Iterable[str]] | None = None,
        attr2: Iterable[str] | tuple[str, Iterable[str]] | None = None,
        model: Any = "glove-6b-50d",
        variant: str = "mean",
        ddof: int = 1,
        n_samples: int = 100_000,
        alternative: str = "greater",
        method: str = "auto",
        seed: int | None = 0,
        sampler: str = DEFAULT_SAMPLER,
        **model_options: Any,
    ) -> None:
        if test is None:
            spec = AssociationTestSpec("custom", *(WordSet(k, ()) for k in SET_KEYS))
        elif isinstance(test, AssociationTestSpec):
            spec = test
        else:
            spec = resolve_test(test)
        self._notes = list(spec.notes)  # what the test's reader removed (an item listed twice in the file)
        for key, given in zip(SET_KEYS, (targ1, targ2, attr1, attr2), strict=True):
            if given is None:
                continue
            named = isinstance(given, tuple) and len(given) == 2 and isinstance(given[0], str)
            if named and not isinstance(given[1], str):
                category, items = given
            else:
                category, items = getattr(spec, key).category, given
            kept, dups = clean_set(key, items)
            self._notes = [n for n in self._notes if not n.startswith(f"{key}:")]
            if dups:
                self._notes.append(duplicates_note(key, dups))
            spec = spec.with_set(key, WordSet.of(category, kept))
        self.spec = spec
        check_study_options(variant=variant, ddof=ddof, n_samples=n_samples, alternative=alternative,
                            method=method, sampler=sampler, seed=seed)
        self.model = load_model(model, **model_options)
        self.options = dict(
            variant=variant, ddof=ddof, n_samples=n_samples, alternative=alternative, method=method, sampler=sampler
        )
        self.seed = seed
        self._cache: dict[str, np.ndarray | OutOfVocabulary] = {}
        self._averaged: set[str] = set()  # multi-word items the model averaged
        self._encoder_notes: dict[str, str] = {}  # item -> what the encoder said about it
        self._encode_notes: list[str] = []  # what the encoder said about an encode as a whole
        self._merged: dict[str, tuple[MergedItems, ...]] = {}
        for key in SET_KEYS:  # normalise and deduplicate the initial sets, keeping the notes of what was removed
            removed = [n for n in self._notes if n.startswith(f"{key}:")]
            self.set_items(key, getattr(spec, key).examples)
            self._notes += [n for n in removed if n not in self._notes]

    # -- options -----------------------------------------------------------
    def set_options(self, **options: Any) -> None:
        """Change ``variant``, ``ddof``, ``n_samples``, ``alternative``, ``method``, ``sampler`` or ``seed``.

        All are checked before any is applied: a rejected option leaves the test as it was.
        """
        unknown = sorted(set(options) - {*self.options, "seed"})
        if unknown:
            raise AssociationInputError(f"unknown option(s) {unknown}: use {sorted({*self.options, 'seed'})}")
        check_study_options(**options)
        self.seed = options.pop("seed", self.seed)
        self.options.update(options)

    # -- editing -----------------------------------------------------------
    def set_items(self, key: str, items: Iterable[str]) -> tuple[str, ...]:
        """Replace a set's items (stripped, deduplicated); returns the duplicates removed.

        ``items`` must be a list of strings: a bare string or a non-string item is an
        :class:`AssociationInputError` naming the set and the item, and the set is left as it was.
        """
        if key not in SET_KEYS:
            raise AssociationInputError(f"unknown set {key!r}: use one of {', '.join(SET_KEYS)}")
        kept, dups = clean_set(key, items)
        self.spec = self.spec.with_set(key, WordSet(getattr(self.spec, key).category, kept))
        self._notes = [n for n in self._notes if not n.startswith(f"{key}:")]
        if dups:
            self._notes.append(duplicates_note(key, dups))
        return dups

    def rename(self, key: str, category: str) -> None:
        """Rename a set's category."""
        self.spec = self.spec.with_set(key, WordSet(category, getattr(self.spec, key).examples))

    # -- encoding ----------------------------------------------------------
    def _items_to_encode(self, key: str) -> tuple[str, ...]:
        """What the model encodes for set ``key`` (the items; sentence tests: their sentences)."""
        return getattr(self.spec, key).examples

    def _encode_set(self, key: str) -> tuple[tuple[str, ...], np.ndarray, tuple[OutOfVocabulary, ...], tuple[str, ...]]:
        items = self._items_to_encode(key)
        new = [i for i in items if i not in self._cache]
        if new:
            enc = self.model.encode(new)
            for item, vec in zip(enc.items, enc.vectors, strict=True):
                vec = np.asarray(vec, dtype=np.float64)
                if not np.all(np.isfinite(vec)):
                    raise AssociationInputError(
                        f"{key}: the model's vector for {item!r} holds NaN or an infinite value, so every "
                        "similarity and p-value would be meaningless; fix that vector or drop the item"
                    )
                self._cache[item] = vec
            for miss in enc.oov:
                self._cache[miss.item] = miss
            self._averaged |= set(enc.averaged)
            self._encoder_notes.update(dict(getattr(enc, "item_notes", ())))
            self._encode_notes.extend(n for n in getattr(enc, "notes", ()) if n not in self._encode_notes)
        kept = tuple(i for i in items if not isinstance(self._cache[i], OutOfVocabulary))
        oov = tuple(self._cache[i] for i in items if isinstance(self._cache[i], OutOfVocabulary))
        kept, self._merged[key] = merge_same_vectors(key, kept, self._cache)  # type: ignore[arg-type]
        vectors = np.vstack([self._cache[i] for i in kept]) if kept else np.zeros((0, 1))
        averaged = tuple(i for i in kept if i in self._averaged)
        return kept, vectors, oov, averaged  # type: ignore[return-value]

    def encoded(self) -> dict[str, Any]:
        """Encode all four sets; raises :class:`AssociationInputError` for an unusable set."""
        out = {key: self._encode_set(key) for key in SET_KEYS}
        for key, (kept, _, oov, _) in out.items():
            # the names the editor shows: "Attribute B 'Family'" (the set key, attr2, is not on screen)
            role = ("Target " if key.startswith("targ") else "Attribute ") + SET_ROLES[key]
            label = f"{role} {getattr(self.spec, key).category!r}"
            if not getattr(self.spec, key).examples:
                raise AssociationInputError(f"{label} is empty: add at least one item")
            if not kept:
                detail = "; ".join(o.message() for o in oov)
                raise AssociationInputError(
                    f"{label}: no item is in the model's vocabulary ({detail}); "
                    "check spelling or case, or choose another model"
                )
        return out

    # -- running -----------------------------------------------------------
    def run(
        self, *, confidence_interval: bool = True, level: float = 0.95, n_resamples: int = DEFAULT_RESAMPLES,
        provisional: bool = False, interval_method: str = "BCa", resample: str = "all",
    ) -> AssociationTestResult:
        """Run the test, with the bootstrap intervals of d and of the association difference
        ``mean_X s - mean_Y s`` at ``level`` (on by default; ``confidence_interval=False`` leaves them out):
        ``n_resamples`` resamples of the words within each set, seeded by the study's seed
        (:func:`embias_widgets.metrics.bootstrap.association_intervals_from_cosines`, from the run's cosines).
        ``interval_method``: ``"BCa"`` (default) or ``"percentile"``; ``resample``: ``"all"`` four sets
        (default: an interval over the word populations the lists stand for) or ``"targets"`` (A and B kept:
        the interval with these attribute words, as the permutation test conditions on them).

        With ``provisional``, a sampled test draws only the first block of
        the full run's splits (same seed and sampler: exactly the full run's
        first draws, see
        :func:`embias_widgets.metrics.permutation.first_block_samples`): d is
        final, p a quick estimate, and ``result.provisional_of`` says so.
        The result keeps the cosine matrices, so its :meth:`~AssociationTestResult.influence`,
        :meth:`~AssociationTestResult.stability` and :meth:`~AssociationTestResult.templates` encode nothing.
        """
        check_study_options(confidence_level=level, n_resamples=n_resamples, interval_method=interval_method,
                            resample=resample)
        enc = self.encoded()
        X, Y, A, B = (enc[k][1] for k in SET_KEYS)
        options = dict(self.options)
        quick = first_block_samples(len(X) + len(Y), len(X), options["n_samples"], options["method"],
                                    options["sampler"])
        provisional_of = None
        if provisional and quick is not None:
            provisional_of, options["n_samples"] = options["n_samples"], quick
        core = weat(X, Y, A, B, rng=self.seed, **options)
        W = np.vstack([X, Y])
        cos_a, cos_b = cosine_matrix(W, A), cosine_matrix(W, B)
        intervals = None
        if confidence_interval and core.effect_size is not None:
            intervals = association_intervals_from_cosines(
                cos_a, cos_b, len(X), variant=self.options["variant"], ddof=self.options["ddof"],
                n_resamples=n_resamples, confidence_level=level, method=interval_method, resample=resample,
                rng=self.seed,
            )
        notes = list(self._notes)
        merged = tuple(m for k in SET_KEYS for m in self._merged.get(k, ()))
        notes.extend(m.message() for m in merged)
        notes.extend(self._degenerate_notes(enc, options))
        dropped = [o.item for k in SET_KEYS for o in enc[k][2]]
        if dropped:  # one note naming them: a report section, the CLI and the widget quote it as it is
            more = f" and {len(dropped) - 8} more" if len(dropped) > 8 else ""
            notes.append(f"{len(dropped)} item(s) not in the vocabulary were left out: {', '.join(dropped[:8])}{more}")
        averaged = tuple(i for k in SET_KEYS for i in enc[k][3])
        if averaged:
            notes.append(f"{len(averaged)} multi-word item(s) encoded as the mean of their words' vectors")
        if core.effect_size is None:
            notes.append(f"effect size undefined: {core.effect_size_note}")
        if intervals is not None:
            notes.extend(calibration_notes({k: len(enc[k][0]) for k in SET_KEYS}, core.effect_size,
                                           method=intervals.effect_size.method, resample=resample))
            if resample == "all" and self.options["variant"] == "mean":
                notes.extend(attribute_noise_notes(attribute_noise_share(cos_a, cos_b)))
        reduce = np.max if self.options["variant"] == "max" else np.mean
        rows = {"targ1": slice(0, len(X)), "targ2": slice(len(X), len(W))}
        cosines = {key: (reduce(cos_a[r], axis=1), reduce(cos_b[r], axis=1)) for key, r in rows.items()}
        return AssociationTestResult(
            test=self.spec.name,
            model=getattr(self.model, "name", type(self.model).__name__),
            options=options_string(self.model, self.options),
            categories={k: getattr(self.spec, k).category for k in SET_KEYS},
            items={k: enc[k][0] for k in SET_KEYS},
            oov={k: enc[k][2] for k in SET_KEYS},
            averaged=averaged,
            notes=tuple(notes),
            core=core,
            interval=None if intervals is None else intervals.effect_size,
            difference_interval=None if intervals is None else intervals.association_difference,
            provisional_of=provisional_of,
            merged=merged,
            attribute_cosines=cosines,
            cosines=(cos_a, cos_b),
            run_options={**{k: options[k] for k in ("n_samples", "method", "alternative", "sampler")},
                         "n_samples": self.options["n_samples"], "seed": self.seed},
        )

    def _degenerate_notes(self, enc: dict[str, Any], options: dict[str, Any]) -> list[str]:
        """Say when a result is degenerate or its p was not computed as asked."""
        notes = []
        x_items, y_items = enc["targ1"][0], enc["targ2"][0]
        if len(x_items) == 1 and len(y_items) == 1:
            notes.append(
                "one item per target set: |d| is then sqrt(2) (ddof=1) or 2 (ddof=0) whatever the words "
                "(Ethayarajh et al. 2019, proposition 2), so d says nothing; use several items per set"
            )
        for first, second, what in (("targ1", "targ2", "target"), ("attr1", "attr2", "attribute")):
            rows = {np.ascontiguousarray(v).tobytes(): i for i, v in zip(enc[first][0], enc[first][1], strict=True)}
            both = [(rows[f], i) for i, v in zip(enc[second][0], enc[second][1], strict=True)
                    if (f := np.ascontiguousarray(v).tobytes()) in rows]
            if both:
                shown = ", ".join(repr(a) if a == b else f"{a!r}/{b!r}" for a, b in both)
                notes.append(f"{shown} in both {what} sets ({first} and {second}): the two sets are not disjoint")
        said = [f"{item!r}: {self._encoder_notes[item]}" for k in SET_KEYS for item in enc[k][0]
                if item in self._encoder_notes]
        notes.extend(dict.fromkeys(said))
        notes.extend(self._encode_notes)
        n, k = len(x_items) + len(y_items), len(x_items)
        splits = math.comb(n, k)
        capped = permutation.MAX_EXACT_SPLITS < splits <= options["n_samples"]
        if options["method"] in ("auto", "parametric") and capped:
            notes.append(
                f"C({n}, {k}) = {splits:,} splits is more than exact enumeration's cap of "
                f"{permutation.MAX_EXACT_SPLITS:,}: p is from {options['n_samples']:,} sampled splits instead"
            )
        return notes
