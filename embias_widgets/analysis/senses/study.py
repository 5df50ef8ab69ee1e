"""``SenseAssociationTest``: WEAT over word senses, with its word-level twins beside it.

Zhou, Kaneko & Bollegala (2022, section 3): each target and attribute item is a
WordNet 3.0 sense key (``"violet%1:20:00::"``) or a lemma (``"violet"``). A key is
its sense vector; a lemma resolves over all its senses, by the max over sense
pairs (``senses="max"``, the paper's WAT heuristic) or by the eq. 7 average
vector (``senses="average"``). The association is eq. 2's ``max`` variant.

Every run also computes the two word-level twins of the same test, with every
item replaced by its lemma: the eq. 7 average word vectors (what a
sense-insensitive embedding would say, Table 2's "avg" rows) and the max over
all sense pairs, which names the senses that won each comparison.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import numpy as np

from ...metrics import AssociationResult, weat
from ...metrics.association import unit_rows
from ...metrics.bootstrap import (
    association_intervals_from_cosines,
    check_interval_options,
    effect_size_interval_from_cosines,
)
from ...metrics.permutation import first_block_samples
from ...metrics.robustness_groups import max_pair_cosines
from ...metrics.samplers import DEFAULT_SAMPLER
from ...metrics.senses import MaxSenseResult, sense_weat
from ...models.registry import load_sense_model
from ...models.sense_vectors import SenseVectors
from ...stimuli import SET_KEYS, AssociationTestSpec, WordSet, clean_items
from ...stimuli.association_tests import duplicates_note
from ...stimuli.catalog import resolve_test
from ...stimuli.sense_tests import is_sense_test, load_sense_test
from ...stimuli.wordnet import WordNet, load_wordnet
from ..association.story import calibration_notes
from .resolve import Resolved, lemma_keys, one_item_per_lemma, resolve_item, resolve_sets
from .result import ResolvedItem, SenseAssociationResult

SENSE_MODES = ("max", "average")


def _with_items(spec: AssociationTestSpec, key: str, items: Any, category: str | None = None, *,
                edit: bool = True) -> tuple[AssociationTestSpec, tuple[str, ...]]:
    """``spec`` with set ``key`` holding ``items`` cleaned (stripped, each once) and a note of any item listed
    more than once; ``edit`` (a new set) first drops the set's earlier note, else an earlier note stays (the
    test file's reader removed its duplicates already)."""
    kept, dups = clean_items(items)
    notes = [n for n in spec.notes if not (edit and n.startswith(f"{key}: removed duplicate"))]
    if dups:
        notes.append(duplicates_note(key, dups))
    spec = spec.with_set(key, WordSet(getattr(spec, key).category if category is None else category, kept))
    return replace(spec, notes=tuple(dict.fromkeys(notes))), dups


def _spec_of(test: str | AssociationTestSpec | None) -> AssociationTestSpec:
    if test is None:
        return AssociationTestSpec("custom", *(WordSet(k, ()) for k in SET_KEYS))
    if isinstance(test, AssociationTestSpec):
        return test
    return load_sense_test(test) if is_sense_test(test) else resolve_test(test)


class SenseAssociationTest:
    """A WEAT over sense keys and lemmas, with word-level twins.

    Parameters
    ----------
    test
        A bundled sense test name (``"sense-weat1"``), any other test name or sent-bias file
        (its words are lemmas), an :class:`AssociationTestSpec` whose items are sense keys or
        lemmas, or ``None`` with the four sets as keywords.
    targ1, targ2, attr1, attr2
        Items (or ``(category, items)``): sense keys (``"nurse%1:18:00::"``) or lemmas.
    model
        A sense model: ``"gloss:all-MiniLM-L6-v2"`` (default), ``"gloss:<encoder>"``, a sense-vector
        file path, or a :class:`~embias_widgets.models.sense_vectors.SenseVectors`.
    senses
        How a lemma item resolves: ``"max"`` over sense pairs (default) or ``"average"`` (eq. 7).
    drop_unknown_lemmas
        Leave out (with a note) lemma items WordNet does not know, as word tests leave out
        out-of-vocabulary words; default ``False``: such an item is an error. Sense keys WordNet
        lacks are always an error.
    word_variant
        Association variant of the eq. 7 word-level twin: ``"max"`` (default, as the sense test) or ``"mean"``.
    ddof, n_samples, alternative, method, sampler, seed
        Options of the permutation test and effect size (see
        :func:`embias_widgets.metrics.permutation.permutation_test`; ``sampler`` names how sampled
        splits are drawn).
    """

    def __init__(
        self,
        test: str | AssociationTestSpec | None = None,
        *,
        targ1: Any = None,
        targ2: Any = None,
        attr1: Any = None,
        attr2: Any = None,
        model: Any = "gloss:all-MiniLM-L6-v2",
        senses: str = "max",
        word_variant: str = "max",
        ddof: int = 1,
        n_samples: int = 100_000,
        alternative: str = "greater",
        method: str = "auto",
        sampler: str = DEFAULT_SAMPLER,
        seed: int | None = 0,
        wordnet: WordNet | None = None,
        drop_unknown_lemmas: bool = False,
        **model_options: Any,
    ) -> None:
        if senses not in SENSE_MODES:
            raise ValueError(f"senses must be one of {SENSE_MODES}, not {senses!r}")
        spec = _spec_of(test)
        for key, given in zip(SET_KEYS, (targ1, targ2, attr1, attr2), strict=True):
            if given is None:
                continue
            named = isinstance(given, tuple) and len(given) == 2 and isinstance(given[0], str)
            category, items = given if named and not isinstance(given[1], str) else (getattr(spec, key).category, given)
            spec = _with_items(spec, key, items, category)[0]
        for key in SET_KEYS:  # a spec built in Python may list an item twice: cleaned, with a note
            spec = _with_items(spec, key, getattr(spec, key).examples, edit=False)[0]
        self.spec = spec
        self.model: SenseVectors = load_sense_model(model, **model_options)
        self.wordnet = wordnet
        self.senses = senses
        self.word_variant = word_variant
        self.options = dict(ddof=ddof, n_samples=n_samples, alternative=alternative, method=method, sampler=sampler)
        self.seed = seed
        self.drop_unknown_lemmas = drop_unknown_lemmas
        self._twins: dict[tuple, tuple[AssociationResult, MaxSenseResult]] = {}  # the current lemmas' only

    def set_items(self, key: str, items: Iterable[str]) -> tuple[str, ...]:
        """Replace a set's items (keys or lemmas; stripped, deduplicated, an item listed twice noted); returns the
        duplicates removed."""
        self.spec, dups = _with_items(self.spec, key, items)
        return dups

    def _wordnet(self) -> WordNet:
        if self.wordnet is None:
            self.wordnet = getattr(self.model, "wordnet", None) or load_wordnet()
        return self.wordnet

    def resolve(self, key: str, item: str) -> ResolvedItem:
        """Read one item of set ``key`` as a sense key or a lemma; errors name the set and the item."""
        category = getattr(self.spec, key).category
        return resolve_item(self.model, self._wordnet(), item, key=key, category=category)[0]

    def _quick_options(self, n: int, n_x: int) -> dict[str, Any] | None:
        """The options of a provisional run over ``n`` target items, or ``None`` when the full run is as quick
        (exact, parametric or one block of sampled splits: see :func:`first_block_samples`)."""
        o = self.options
        quick = first_block_samples(n, n_x, o["n_samples"], o["method"], o["sampler"])
        return None if quick is None else {**o, "n_samples": quick}

    def _word_twins(
        self, word_items: Resolved, groups: dict[str, np.ndarray], *, provisional: bool = False
    ) -> tuple[tuple[AssociationResult, MaxSenseResult], bool]:
        """The eq. 7 average and max-over-sense-pairs twins, and whether their p is provisional. They depend only
        on the lemmas, so picking another sense of a lemma reuses them; a provisional call reuses the full-precision
        twins when they are cached and otherwise draws only the first block of splits (cached apart)."""
        lemmas = tuple(tuple(r.lemma for r in word_items[k]) for k in SET_KEYS)
        model_state = (self.model.name, self.model.options, getattr(self.model, "version", 0))
        base = (lemmas, model_state, self.word_variant, self.seed)
        full_key = (*base, tuple(sorted(self.options.items())))
        options = self.options
        if provisional and full_key not in self._twins:
            n_x = len(word_items["targ1"])
            options = self._quick_options(n_x + len(word_items["targ2"]), n_x) or self.options
        twin_key = (*base, tuple(sorted(options.items())))
        if twin_key not in self._twins:
            word_sets = [[groups[r.lemma] for r in word_items[k]] for k in SET_KEYS]
            word_max = sense_weat(*word_sets, rng=self.seed, **options)
            X, Y, A, B = (np.vstack([g.mean(axis=0) for g in s]) for s in word_sets)
            word_average = weat(X, Y, A, B, variant=self.word_variant, rng=self.seed, **options)
            self._twins = {k: v for k, v in self._twins.items() if k[:4] == base}  # other lemmas' twins go
            self._twins[twin_key] = (word_average, word_max)
        return self._twins[twin_key], options is not self.options

    def run(self, *, provisional: bool = False, confidence_interval: bool = True, level: float = 0.95,
            n_resamples: int = 2_000, interval_method: str = "BCa", resample: str = "all") -> SenseAssociationResult:
        """Encode what is new, run the sense test (eq. 2, ``max``) and both word-level twins.

        With ``provisional``, a sampled test draws only the first block of the full run's splits (the same
        first draws, :func:`~embias_widgets.metrics.permutation.first_block_samples`), as
        :meth:`AssociationTest.run <embias_widgets.analysis.association.AssociationTest.run>` does: every d is
        final, the p of the levels named in ``result.provisional_levels`` a quick estimate (twins already run in
        full are reused in full). A live editor shows it at once, then runs again without ``provisional``.

        The sense level's d and its association difference get their bootstrap intervals at ``level`` (on by
        default, ``confidence_interval=False`` leaves them out): ``n_resamples`` resamples of the items of each
        set, an item's cosine with an attribute item being the max over their sense pairs, as in the test
        (:func:`item_cosines`); ``interval_method`` ``"BCa"`` (default) or ``"percentile"``, ``resample``
        ``"all"`` (default) or ``"targets"`` (attribute items kept), as for
        :meth:`AssociationTest.run <embias_widgets.analysis.association.AssociationTest.run>`. The eq. 7 word
        level's d gets one the same way, over its lemmas (each its mean sense vector).
        """
        check_interval_options(interval_method, resample)
        resolved, item_notes = resolve_sets(
            self.spec, self.model, self._wordnet(), drop_unknown_lemmas=self.drop_unknown_lemmas
        )
        keys_by_lemma = lemma_keys(self.model, resolved)
        wanted = [k for keys in keys_by_lemma.values() for k in keys]
        wanted += [k for key in SET_KEYS for r in resolved[key] if r.is_key for k in r.keys]
        self.model.vectors(list(dict.fromkeys(wanted)))  # one batch for what is new (a gloss model encodes it once)
        groups = {lemma: self.model.vectors(keys) for lemma, keys in keys_by_lemma.items()}

        def item_vectors(r: ResolvedItem) -> np.ndarray:
            if r.is_key:
                return self.model.vectors(r.keys)
            return groups[r.lemma] if self.senses == "max" else groups[r.lemma].mean(axis=0, keepdims=True)

        n_x = len(resolved["targ1"])
        quick = self._quick_options(n_x + len(resolved["targ2"]), n_x) if provisional else None
        item_sets = [[item_vectors(r) for r in resolved[k]] for k in SET_KEYS]
        sense = sense_weat(*item_sets, rng=self.seed, **(quick or self.options))
        cosines = item_cosines(item_sets)
        intervals = None
        if confidence_interval and sense.result.effect_size is not None:
            intervals = association_intervals_from_cosines(
                *cosines, n_x, variant="max", ddof=self.options["ddof"], n_resamples=n_resamples,
                confidence_level=level, method=interval_method, resample=resample, rng=self.seed,
            )
        word_items, merged = one_item_per_lemma(resolved)
        (word_average, word_max), twins_quick = self._word_twins(word_items, groups, provisional=provisional)
        # the eq. 7 level: one mean sense vector per lemma, its interval from the same bootstrap over its lemmas
        word_cosines = item_cosines([[groups[r.lemma].mean(axis=0, keepdims=True) for r in word_items[k]]
                                     for k in SET_KEYS])
        word_interval = None
        if confidence_interval and word_average.effect_size is not None:
            word_interval = effect_size_interval_from_cosines(
                *word_cosines, len(word_items["targ1"]), variant=self.word_variant, ddof=self.options["ddof"],
                n_resamples=n_resamples, confidence_level=level, method=interval_method, resample=resample,
                rng=self.seed,
            )
        quick_levels = (("sense",) if quick else ()) + (("word_average", "word_max") if twins_quick else ())
        notes = [*self.spec.notes, *item_notes.values(), *(f"word level: {m.message()} (senses of one lemma)"
                                                          for m in merged)]
        if self.senses == "average" and any(not r.is_key for k in SET_KEYS for r in resolved[k]):
            notes.append("lemma items use the eq. 7 average of their sense vectors (senses='average')")
        if intervals is not None:
            notes += calibration_notes({k: len(resolved[k]) for k in SET_KEYS}, sense.result.effect_size,
                                       method=intervals.effect_size.method, resample=resample)
        options = f"variant=max,ddof={self.options['ddof']},senses={self.senses}"
        if self.options["sampler"] != DEFAULT_SAMPLER:  # other draws for the same seed: say so
            options += f",sampler={self.options['sampler']}"
        return SenseAssociationResult(
            test=self.spec.name,
            model=self.model.name,
            options=",".join(p for p in (self.model.options, options) if p),
            senses=self.senses,
            categories={k: getattr(self.spec, k).category for k in SET_KEYS},
            items=resolved,
            sense=sense,
            word_average=word_average,
            word_max=word_max,
            lemma_keys=keys_by_lemma,
            notes=tuple(notes),
            merged=merged,
            word_items=word_items,
            provisional_of=self.options["n_samples"] if quick_levels else None,
            provisional_levels=quick_levels,
            interval=None if intervals is None else intervals.effect_size,
            difference_interval=None if intervals is None else intervals.association_difference,
            seed=self.seed,
            cosines=cosines,
            word_interval=word_interval,
            word_cosines=word_cosines,
            run_options={k: self.options[k] for k in ("n_samples", "method", "alternative", "sampler")},
        )


def item_cosines(item_sets: list[list[np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """The sense test's item-level cosines, (targets X then Y) x A and x B: the max over each pair of items'
    sense pairs (:func:`~embias_widgets.metrics.robustness_groups.max_pair_cosines`), so that
    ``s(w) = max_a cos(w, a) - max_b cos(w, b)`` over them is :func:`sense_weat`'s association. The bootstrap
    interval (items resampled within each set) and the result's influence and stability start from them."""
    X, Y, A, B = ([unit_rows(np.atleast_2d(np.asarray(g, dtype=np.float64))) for g in groups]
                  for groups in item_sets)
    targets = [*X, *Y]
    return max_pair_cosines(targets, A), max_pair_cosines(targets, B)
