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
from typing import Any

import numpy as np

from ..metrics import AssociationResult, weat
from ..metrics.senses import MaxSenseResult, sense_weat
from ..models.sense_vectors import SenseVectors, load_sense_model
from ..stimuli import SET_KEYS, AssociationTestSpec, WordSet, clean_items
from ..stimuli.wordnet import UnknownSenseError, WordNet, load_wordnet
from .association import MergedItems
from .sense_result import LEVEL_TITLES, LEVELS, ResolvedItem, SenseAssociationResult, altair_scale_colors

__all__ = [
    "LEVELS",
    "LEVEL_TITLES",
    "SENSE_MODES",
    "ResolvedItem",
    "SenseAssociationResult",
    "SenseAssociationTest",
    "SenseInputError",
    "altair_scale_colors",
    "is_sense_model",
    "run_sense_suite",
    "uses_senses",
]

SENSE_MODES = ("max", "average")


class SenseInputError(ValueError):
    """A sense test that cannot run as given: names the set, the item and the fix."""



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
    ddof, n_samples, alternative, method, seed
        Options of the permutation test and effect size.
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
        seed: int | None = 0,
        wordnet: WordNet | None = None,
        drop_unknown_lemmas: bool = False,
        **model_options: Any,
    ) -> None:
        if senses not in SENSE_MODES:
            raise ValueError(f"senses must be one of {SENSE_MODES}, not {senses!r}")
        if test is None:
            spec = AssociationTestSpec("custom", *(WordSet(k, ()) for k in SET_KEYS))
        elif isinstance(test, AssociationTestSpec):
            spec = test
        else:
            from ..stimuli.catalog import resolve_test
            from ..stimuli.sense_tests import is_sense_test, load_sense_test

            spec = load_sense_test(test) if is_sense_test(test) else resolve_test(test)
        for key, given in zip(SET_KEYS, (targ1, targ2, attr1, attr2), strict=True):
            if given is None:
                continue
            named = isinstance(given, tuple) and len(given) == 2 and isinstance(given[0], str)
            category, items = given if named and not isinstance(given[1], str) else (getattr(spec, key).category, given)
            spec = spec.with_set(key, WordSet.of(category, items))
        self.spec = spec
        self.model: SenseVectors = load_sense_model(model, **model_options)
        self.wordnet = wordnet
        self.senses = senses
        self.word_variant = word_variant
        self.options = dict(ddof=ddof, n_samples=n_samples, alternative=alternative, method=method)
        self.seed = seed
        self.drop_unknown_lemmas = drop_unknown_lemmas
        self._notes: dict[str, str] = {}
        self._twins: dict[tuple, tuple[AssociationResult, MaxSenseResult]] = {}
        for key in SET_KEYS:
            self.set_items(key, getattr(spec, key).examples)

    def set_items(self, key: str, items: Iterable[str]) -> tuple[str, ...]:
        """Replace a set's items (keys or lemmas; stripped, deduplicated); returns the duplicates removed."""
        kept, dups = clean_items(items)
        self.spec = self.spec.with_set(key, WordSet(getattr(self.spec, key).category, kept))
        return dups

    def _wordnet(self) -> WordNet:
        if self.wordnet is None:
            self.wordnet = getattr(self.model, "wordnet", None) or load_wordnet()
        return self.wordnet

    def _keys_of(self, lemma: str) -> tuple[str, ...]:
        try:
            return tuple(self.model.keys_of(lemma))
        except UnknownSenseError:  # gloss models ask WordNet, which knows no such lemma
            return ()

    def resolve(self, key: str, item: str) -> ResolvedItem:
        """Read one item of set ``key`` as a sense key or a lemma; errors name the set and the item."""
        label = f"{key} ({getattr(self.spec, key).category!r})"
        wn = self._wordnet()
        try:
            if wn.is_key(item):
                sense = wn.sense(item)  # a key WordNet 3.0 lacks is named as such, never a zero vector
                return ResolvedItem(item, sense.lemma, (sense.key,), True)
            lemma = "_".join(item.lower().split())
            keys = self._keys_of(lemma)
            if not keys:
                bases = [b for b in wn.base_forms(lemma) if self._keys_of(b)]
                if len(bases) == 1:  # an inflected form ("equations"): its WordNet lemma, said in the notes
                    self._notes[item] = f"{key}: {item!r} read as the WordNet lemma {bases[0]!r}"
                    return ResolvedItem(item, bases[0], self._keys_of(bases[0]), False)
                wn.senses(lemma)  # unknown lemma: UnknownSenseError with close matches
                raise SenseInputError(f"{label}: {self.model.name} has no vector for any sense of {item!r}")
            return ResolvedItem(item, lemma, keys, False)
        except UnknownSenseError as err:
            raise SenseInputError(f"{label}: {err}") from None

    def run(self) -> SenseAssociationResult:
        """Encode what is new, run the sense test and both word-level twins."""
        resolved: dict[str, tuple[ResolvedItem, ...]] = {}
        self._notes = {}
        for key in SET_KEYS:
            items = getattr(self.spec, key).examples
            if not items:
                raise SenseInputError(
                    f"{key} ({getattr(self.spec, key).category!r}) is empty: add at least one sense key or lemma"
                )
            kept, dropped = [], []
            for item in items:
                try:
                    kept.append(self.resolve(key, item))
                except SenseInputError as err:
                    if not self.drop_unknown_lemmas or self._wordnet().is_key(item):
                        raise
                    self._notes[item] = f"left out: {err}"
                    dropped.append(str(err))
            if not kept:
                raise SenseInputError(f"no item of {key} can be used: " + " | ".join(dropped))
            resolved[key] = tuple(kept)
        lemma_keys: dict[str, tuple[str, ...]] = {}
        for r in (r for key in SET_KEYS for r in resolved[key]):
            if r.lemma not in lemma_keys:
                keys = tuple(self.model.keys_of(r.lemma))
                lemma_keys[r.lemma] = keys if keys else r.keys
        wanted = [k for keys in lemma_keys.values() for k in keys]
        wanted += [k for key in SET_KEYS for r in resolved[key] if r.is_key for k in r.keys]
        self.model.vectors(list(dict.fromkeys(wanted)))  # one batch for what is new (a gloss model encodes it once)
        groups = {lemma: self.model.vectors(keys) for lemma, keys in lemma_keys.items()}

        def item_vectors(r: ResolvedItem) -> np.ndarray:
            if r.is_key:
                return self.model.vectors(r.keys)
            return groups[r.lemma] if self.senses == "max" else groups[r.lemma].mean(axis=0, keepdims=True)

        sets = [[item_vectors(r) for r in resolved[k]] for k in SET_KEYS]
        sense = sense_weat(*sets, rng=self.seed, **self.options)
        # the word-level twins depend only on the lemmas: picking another sense of a lemma reuses them
        word_items, merged = _one_item_per_lemma(resolved)
        lemmas = tuple(tuple(r.lemma for r in word_items[k]) for k in SET_KEYS)
        model_state = (self.model.name, self.model.options, getattr(self.model, "version", 0))
        twin_key = (lemmas, model_state, self.word_variant, self.seed, tuple(sorted(self.options.items())))
        if twin_key not in self._twins:
            word_sets = [[groups[r.lemma] for r in word_items[k]] for k in SET_KEYS]
            word_max = sense_weat(*word_sets, rng=self.seed, **self.options)
            X, Y, A, B = (np.vstack([g.mean(axis=0) for g in s]) for s in word_sets)
            word_average = weat(X, Y, A, B, variant=self.word_variant, rng=self.seed, **self.options)
            self._twins = {twin_key: (word_average, word_max)}
        word_average, word_max = self._twins[twin_key]
        notes = list(self.spec.notes) + list(self._notes.values())
        notes += [f"word level: {m.message()} (senses of one lemma)" for m in merged]
        if self.senses == "average" and any(not r.is_key for k in SET_KEYS for r in resolved[k]):
            notes.append("lemma items use the eq. 7 average of their sense vectors (senses='average')")
        return SenseAssociationResult(
            test=self.spec.name,
            model=self.model.name,
            options=",".join(
                p for p in (self.model.options, f"variant=max,ddof={self.options['ddof']},senses={self.senses}") if p
            ),
            senses=self.senses,
            categories={k: getattr(self.spec, k).category for k in SET_KEYS},
            items=resolved,
            sense=sense,
            word_average=word_average,
            word_max=word_max,
            lemma_keys=lemma_keys,
            notes=tuple(notes),
            merged=merged,
            word_items=word_items,
        )


def _one_item_per_lemma(
    resolved: dict[str, tuple[ResolvedItem, ...]],
) -> tuple[dict[str, tuple[ResolvedItem, ...]], tuple[MergedItems, ...]]:
    """The word-level items of each set: one per lemma (the first item of it), and what was merged.

    At the word level every item is replaced by its lemma, so two senses of one lemma in one set
    are one word with one vector; counted twice they would weigh that word double (with two such
    items per set, eq. 7's d came out +-sqrt(3) whatever the vectors). As a word test merges
    spellings the model maps to one vector (:class:`MergedItems`), the first item stands for the lemma.
    """
    word_items: dict[str, tuple[ResolvedItem, ...]] = {}
    merged: list[MergedItems] = []
    for key in SET_KEYS:
        first: dict[str, ResolvedItem] = {}
        same: dict[str, list[str]] = {}
        for r in resolved[key]:
            if r.lemma in first:
                same.setdefault(r.lemma, []).append(r.item)
            else:
                first[r.lemma] = r
        word_items[key] = tuple(first.values())
        merged += [MergedItems(key, first[lemma].item, tuple(items)) for lemma, items in same.items()]
    return word_items, tuple(merged)


def is_sense_model(spec: Any) -> bool:
    """Whether ``spec`` names a sense model: ``"gloss:<encoder>"``, a sense-vector file, or a loaded one."""
    from pathlib import Path

    from ..models.sense_vectors import is_sense_file

    if isinstance(spec, SenseVectors):
        return True
    if not isinstance(spec, str | Path):
        return False
    return str(spec).startswith("gloss:") or (Path(spec).expanduser().is_file() and is_sense_file(spec))


def uses_senses(tests: Iterable[str], models: Iterable[Any]) -> bool:
    """Whether a batch run is a sense run; mixing sense and word models or tests is an error."""
    from ..stimuli.sense_tests import is_sense_test

    models, tests = list(models), list(tests)
    sense_models = [is_sense_model(m) for m in models]
    if any(sense_models) and not all(sense_models):
        plain = [str(m) for m, s in zip(models, sense_models, strict=True) if not s]
        raise ValueError(f"cannot mix sense models with word/sentence models ({', '.join(plain)}): run them separately")
    sense_tests = [t for t in tests if is_sense_test(t)]
    if sense_tests and models and not any(sense_models):
        raise ValueError(
            f"{', '.join(sense_tests)} need a sense model: --model gloss:all-MiniLM-L6-v2, gloss:<encoder>, "
            "or an LMMS .npz/.txt or ARES .txt file"
        )
    return bool(sense_tests) or any(sense_models)


def run_sense_suite(tests: Iterable[str], models: Iterable[Any], *, senses: str = "max", **options: Any) -> list[dict]:
    """Every test on every sense model; one record per (test, model) as :meth:`SenseAssociationResult.to_dict`."""
    from ..stimuli.sense_tests import is_sense_test, sense_test_names

    names = [n for t in tests for n in (sense_test_names() if t == "all" else [t])]
    rows = []
    for model in models:
        loaded = load_sense_model(model)
        for name in names:
            # word tests read as lemmas leave out what WordNet lacks, as word tests leave out OOV words
            study = SenseAssociationTest(name, model=loaded, senses=senses, drop_unknown_lemmas=not is_sense_test(name),
                                         **options)
            rows.append(study.run().to_dict())
    return rows
