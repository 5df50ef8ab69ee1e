"""``ContextualAssociationTest``: CEAT (Guo & Caliskan 2021) on a contextual encoder.

Each word of a test gets its contexts (:mod:`embias_widgets.stimuli.ceat_contexts`: a user's file of
sentences, or a bundled source), each context its contextual vector (the last layer over the word's tokens,
:mod:`embias_widgets.models.sentence_encoders.contextual`), and the metric core draws one vector per word
``N`` times: the headline is the mean of the ``N`` WEAT effect sizes with a two-stage bootstrap interval over
words and contexts and a permutation p (:mod:`embias_widgets.metrics.ceat_inference`); Guo & Caliskan's
random-effects combination is kept beside it as a reproduction of the paper (:mod:`embias_widgets.metrics.ceat`).
Sentences are encoded once per study; re-running with another ``N``, seed or level re-samples only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ...metrics.ceat import check_n_samples, random_effects
from ...metrics.ceat_inference import DEFAULT_CEAT_RESAMPLES, ceat_test
from ...stimuli import SET_KEYS, AssociationTestSpec
from ...stimuli.ceat_contexts import (
    CONTEXT_SOURCES,
    WordContexts,
    bundled_contexts,
    contexts_from_sentences,
    read_context_file,
    resolve_ceat_test,
)
from .result import ContextualAssociationResult

DEFAULT_SAMPLES = 10_000
"""N of the paper (Guo & Caliskan 2021, and the default of their ``ceat_meta``)."""
MISSING = ("drop", "error")
_SET_NAMES = dict(zip(SET_KEYS, ("X", "Y", "A", "B"), strict=True))


class CeatInputError(ValueError):
    """A CEAT run that cannot start: the message names the word, set, file or option and the fix."""


def load_contextual_model(model: Any, **options: Any) -> Any:
    """A model with token vectors: a registered sentence encoder or masked LM, a model directory or hub name
    (loaded as a transformer encoder: a masked LM's checkpoint gives its encoder), or such an object."""
    if not isinstance(model, str | Path):
        return model
    from ...models.registry import load_model, registered_kind

    kind = registered_kind(str(model))
    if kind == "language-model":
        from ...models.language_models import load_likelihood_model

        return load_likelihood_model(str(model), **options)
    if kind not in (None, "sentence") or (kind is None and Path(str(model)).expanduser().is_file()):
        what = "a file of vectors, one per word" if kind is None else f"a {kind} model"
        raise CeatInputError(f"{model!r} is {what}: CEAT needs a contextual encoder (a sentence encoder such as "
                             "all-MiniLM-L6-v2, a masked LM such as embias-demo-mlm, or a model directory or hub "
                             "name)")
    if kind is None and _is_masked_lm(str(model)):  # its own class: no unused-head warnings, its lowercasing
        from ...models.language_models import load_likelihood_model

        return load_likelihood_model(str(model), kind="masked", progress=False, **options)
    loaded = load_model(str(model), **options)
    if not hasattr(loaded, "tokenizer"):
        raise CeatInputError(f"{model!r} has no token vectors (e.g. the CBoW baseline): CEAT needs a transformer")
    return loaded


def _is_masked_lm(name: str) -> bool:
    """Whether a model directory or hub name is saved as a masked LM (its config's architectures)."""
    try:
        from transformers import AutoConfig

        architectures = AutoConfig.from_pretrained(name).architectures or []
    except (OSError, ValueError):
        return False  # not a model: load_model says why
    return any(str(a).endswith("ForMaskedLM") for a in architectures)


class ContextualAssociationTest:
    """CEAT: WEAT over many contexts per word (Guo & Caliskan 2021), with a valid interval and p.

    Parameters
    ----------
    test
        ``"ceat11"`` .. ``"ceat14"`` (the paper's intersectional tests), a bundled WEAT test (``"weat6"``), a
        sent-bias test file, or an :class:`~embias_widgets.stimuli.AssociationTestSpec`.
    model
        A sentence encoder or masked LM: registered name, model directory, hub name, or a loaded adapter.
    contexts
        A text file (one sentence per line), a list of sentences, or a bundled source: ``"templates"``
        (default: SEAT's bleached templates), ``"wordnet"`` or ``"templates+wordnet"``
        (:mod:`~embias_widgets.stimuli.ceat_contexts`).
    case_sensitive
        Match a test word in the user's sentences (and WordNet's) as written (default, as the authors do) or
        ignoring case.
    subwords
        ``"mean"`` of the word's tokens' last-layer vectors (default) or the ``"last"`` token (the authors').
    missing
        A word without any context is ``"drop"``-ped with a note (default; the authors drop such words), or an
        ``"error"``.
    shared
        A dict ``(sentence, span) -> vector`` to reuse vectors across studies of the *same* model and
        ``subwords`` (the report's CEAT section passes one for all its tests); default: this study's own.
    **model_options
        ``device``, ``dtype``, ... for the model load.
    """

    def __init__(self, test: str | Path | AssociationTestSpec = "weat6", *, model: Any = "all-MiniLM-L6-v2",
                 contexts: str | Path | list[str] | tuple[str, ...] = "templates", case_sensitive: bool = True,
                 subwords: str = "mean", missing: str = "drop", shared: dict | None = None,
                 **model_options: Any) -> None:
        if missing not in MISSING:
            raise CeatInputError(f"`missing` must be one of {', '.join(MISSING)}, got {missing!r}")
        if subwords not in ("mean", "last"):
            raise CeatInputError(f"`subwords` must be 'mean' or 'last', got {subwords!r}")
        self.spec = resolve_ceat_test(test)
        self.model = load_contextual_model(model, **model_options)
        self.contexts_given = contexts
        self.case_sensitive = bool(case_sensitive)
        self.subwords = subwords
        self.missing = missing
        self.shared: dict[tuple[str, tuple[int, int]], np.ndarray | None] = {} if shared is None else shared
        self._vectors: dict[str, np.ndarray] | None = None
        self._contexts: WordContexts | None = None
        self._dropped_contexts = 0

    def __repr__(self) -> str:
        return f"ContextualAssociationTest({self.spec.name!r}, model={getattr(self.model, 'name', self.model)!r})"

    def words(self) -> list[str]:
        """Every word of the test, in set order (a word in two sets once)."""
        return list(dict.fromkeys(w for key in SET_KEYS for w in getattr(self.spec, key).examples))

    def contexts(self) -> WordContexts:
        """Each word's sentences and the word's span in each (read once)."""
        if self._contexts is None:
            given = self.contexts_given
            if isinstance(given, list | tuple):
                self._contexts = contexts_from_sentences(given, self.words(), case_sensitive=self.case_sensitive)
            elif isinstance(given, str) and given in CONTEXT_SOURCES:
                self._contexts = bundled_contexts(self.spec, given, case_sensitive=self.case_sensitive)
            elif isinstance(given, str | Path) and Path(given).expanduser().is_file():
                path = Path(given).expanduser()
                self._contexts = read_context_file(path, self.words(), case_sensitive=self.case_sensitive)
                if not any(self._contexts.contexts.values()):
                    what = "is empty" if not path.read_bytes().strip() else "holds no sentence with a word of the test"
                    raise CeatInputError(f"context file {str(path)!r} {what}: give a UTF-8 text file with one sentence "
                                         f"per line, sentences holding the words of {self.spec.name}")
            else:
                raise CeatInputError(f"contexts {given!r} is neither a file nor a bundled source: give the path of "
                                     f"a text file (one sentence per line) or one of {', '.join(CONTEXT_SOURCES)}")
        return self._contexts

    def vectors(self) -> dict[str, np.ndarray]:
        """word -> ``(its contexts, dim)`` contextual vectors; each sentence is encoded once for all its words
        (and not at all when ``shared`` already holds its spans: see the class docstring)."""
        if self._vectors is None:
            from ...models.sentence_encoders.contextual import word_vectors_in_context

            contexts, shared = self.contexts(), self.shared
            wanted = [(word, sentence, span) for word in self.words()
                      for sentence, span in contexts.contexts.get(word, ())]
            by_sentence: dict[str, list[tuple[int, int]]] = {}
            for _, sentence, span in wanted:
                if (sentence, span) not in shared:
                    by_sentence.setdefault(sentence, []).append(span)
            sentences = list(by_sentence)
            got = word_vectors_in_context(self.model, sentences, [by_sentence[t] for t in sentences],
                                          subwords=self.subwords) if sentences else []
            for sentence, vectors in zip(sentences, got, strict=True):
                shared.update(((sentence, span), vector) for span, vector in zip(by_sentence[sentence], vectors,
                                                                                  strict=True))
            rows: dict[str, list[np.ndarray]] = {}
            for word, sentence, span in wanted:
                vector = shared[(sentence, span)]
                if vector is None:
                    self._dropped_contexts += 1
                else:
                    rows.setdefault(word, []).append(vector)
            self._vectors = {w: np.vstack(v) for w, v in rows.items()}
        return self._vectors

    def _kept_sets(self) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
        vectors = self.vectors()
        kept = {k: tuple(w for w in getattr(self.spec, k).examples if w in vectors) for k in SET_KEYS}
        missing = {k: tuple(w for w in getattr(self.spec, k).examples if w not in vectors) for k in SET_KEYS}
        lacking = [f"{_SET_NAMES[k]} ({self.spec.sets()[k].category}): {', '.join(missing[k])}"
                   for k in SET_KEYS if missing[k]]
        fix = ("give sentences holding them (--contexts FILE, one sentence per line), another bundled source, or "
               "leave them out of the test")
        if lacking and self.missing == "error":
            raise CeatInputError(f"no context holds these words: {'; '.join(lacking)}; {fix}")
        empty = [k for k in SET_KEYS if not kept[k]]
        if empty or len(kept["targ1"]) + len(kept["targ2"]) < 2:
            where = ", ".join(f"set {_SET_NAMES[k]}" for k in empty) or "X and Y together (need 2)"
            raise CeatInputError(f"too few words with contexts in {where}: {'; '.join(lacking)}; {fix}")
        return kept, missing

    def run(self, n_samples: int = DEFAULT_SAMPLES, *, seed: int | None = 0, level: float = 0.95,
            n_resamples: int = DEFAULT_CEAT_RESAMPLES) -> ContextualAssociationResult:
        """Draw ``n_samples`` samples (seeded): the headline effect size, its two-stage bootstrap interval
        (``n_resamples`` replicates) and its permutation p (:func:`~embias_widgets.metrics.ceat_test`), and Guo &
        Caliskan's random-effects combination of the same samples (:func:`~embias_widgets.metrics.random_effects`)."""
        try:
            check_n_samples(n_samples)  # before the encoder runs
        except ValueError as err:
            raise CeatInputError(str(err)) from None
        kept, missing = self._kept_sets()
        vectors = self.vectors()
        sets = [[vectors[w] for w in kept[k]] for k in SET_KEYS]
        try:
            inference = ceat_test(*sets, n_samples=n_samples, rng=seed, level=level, n_resamples=n_resamples)
            drawn = inference.samples
            meta = random_effects(drawn.effect_sizes, drawn.variances, level=level)
        except ValueError as err:
            raise CeatInputError(str(err)) from None
        notes = [f"{_SET_NAMES[k]}: no context holds {', '.join(missing[k])}: left out (as the authors leave out "
                 "words without contexts)" for k in SET_KEYS if missing[k]]
        if inference.note:
            notes.append(inference.note)
        if len(kept["targ1"]) == 1 and len(kept["targ2"]) == 1:
            notes.append("one word per target set: each sample's |d| is then sqrt(2) whatever the words (Ethayarajh "
                         "et al. 2019, proposition 2), so d says nothing; use several words per set, each in "
                         "several sentences")
        if self._dropped_contexts:
            notes.append(f"{self._dropped_contexts} context(s) left out: the word lay beyond the model's token limit")
        return ContextualAssociationResult(
            test=self.spec.name, model=str(getattr(self.model, "name", self.model)), options=self.options,
            categories={k: self.spec.sets()[k].category for k in SET_KEYS}, words=kept,
            contexts_source=self.contexts().source, contexts_per_word={w: len(vectors[w]) for k in SET_KEYS
                                                                       for w in kept[k]},
            missing=missing, effect_sizes=drawn.effect_sizes, variances=drawn.variances, meta=meta,
            inference=inference, seed=seed if seed is None or isinstance(seed, int) else None, notes=tuple(notes),
        )

    @property
    def options(self) -> str:
        """How the vectors were made, for result tables."""
        lower = ",lowercase=True" if getattr(self.model, "lowercase", False) else ""
        return f"layer=last,subwords={self.subwords},case_sensitive={self.case_sensitive}{lower}"
