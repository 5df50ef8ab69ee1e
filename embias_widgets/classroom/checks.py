"""Self-checks for the classroom assignments, computed from the library.

Every expected value is recomputed from the analyses (:class:`AssociationTest`,
:class:`RelationProjection`, :class:`PairedLikelihood`, ...) on the inputs in
:mod:`embias_widgets.classroom.materials`, the first time a check needs it in a
kernel; no answer is stored. A student's answer is right when it matches that
value (numbers within a relative tolerance, words case-insensitively, sets as
sets).
"""

from __future__ import annotations

import functools
import math
import os
import reprlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import materials as M  # noqa: N812 (short name for the shared inputs)

# -- library calls (cached per kernel) ----------------------------------------------------------


@functools.cache
def _model(name: str) -> Any:
    from ..models import load_model

    return load_model(name)


@functools.cache
def _weat(test: str, model: str, **options: Any) -> Any:
    from ..analysis import AssociationTest

    return AssociationTest(test, model=_model(model), **options).run()


def _loo_effect_sizes() -> dict[str, float]:
    """d of weat6 with each target word left out in turn (leave-one-out)."""
    from ..analysis import AssociationTest

    full = _weat(M.WEAT_TEST, M.WORD_MODEL)
    out = {}
    for key in ("targ1", "targ2"):
        for word in full.items[key]:
            kept = [w for w in full.items[key] if w != word]
            test = AssociationTest(M.WEAT_TEST, model=_model(M.WORD_MODEL), **{key: kept})
            out[word] = float(test.run().effect_size)
    return out


@functools.cache
def _sentence(test: str, model: str) -> Any:
    from ..analysis import SentenceAssociationTest

    return SentenceAssociationTest(test, model=_model(model))


@functools.cache
def _relation_study() -> Any:
    from ..analysis import RelationProjection
    from ..stimuli.projection_stimuli import BOLUKBASI_DEFINITIONAL_PAIRS

    return RelationProjection(BOLUKBASI_DEFINITIONAL_PAIRS, [M.RIPA_WORD], model=_model(M.WORD_MODEL))


@functools.cache
def _debiased_d(which: str) -> float:
    from ..analysis import AssociationTest

    study = _relation_study()
    model = study.debiased_model("relation") if which == "debiased" else study.random_model(
        "relation", seed=M.RANDOM_SEED)
    return float(AssociationTest(M.WEAT_TEST, model=model).run().effect_size)


@functools.cache
def _likelihood(metric: str) -> Any:
    from ..analysis import PairedLikelihood

    study = PairedLikelihood(M.LIKELIHOOD_PAIRS, model=M.LIKELIHOOD_MODEL, progress=False)
    return study.run(metric=metric, convention="crows")


@functools.cache
def _sense_levels() -> Any:
    from ..analysis.senses import SenseAssociationTest

    test = SenseAssociationTest(M.SENSE_TEST, model=_model(M.SENSE_MODEL))
    return test.run().levels().set_index("level").effect_size


def _more_female_sense() -> str:
    from ..analysis import sense_gender_bias

    frame = sense_gender_bias(_model(M.SENSE_MODEL)).frame()
    bias = frame[frame.occupation == M.SENSE_LEMMA].set_index("kind").bias
    return "noun" if bias["noun sense"] < bias["verb sense"] else "verb"


def _n_senses() -> int:
    from ..stimuli.wordnet import load_wordnet

    return len(load_wordnet().senses(M.SENSE_LEMMA))


def _disagreements() -> set[int]:
    cps, aul = _likelihood("cps"), _likelihood("aul")
    return {i for i, (a, b) in enumerate(zip(cps.rows, aul.rows, strict=True)) if a.preferred != b.preferred}


# -- checks ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    """One self-check: what is asked, how the library computes it, how answers compare."""

    id: str
    question: str
    compute: Callable[[], Any]
    kind: str  # "number", "word", "set", "bool", "member"
    hint: str
    rtol: float = 1e-6

    def expected(self) -> Any:
        return self.compute()


@dataclass(frozen=True)
class CheckResult:
    """Truthy when the answer is right; ``message`` is what was printed."""

    id: str
    passed: bool
    message: str

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return f"CheckResult({self.id!r}, passed={self.passed})"


def _c(id: str, question: str, compute: Callable[[], Any], kind: str, hint: str, rtol: float = 1e-6) -> Check:
    return Check(id, question, compute, kind, hint, rtol)


_CHECKS = [
    # Assignment 1: WEAT
    _c("weat-1", "effect size d of weat6 on GloVe 6B 50d (defaults)",
       lambda: _weat(M.WEAT_TEST, M.WORD_MODEL).effect_size, "number",
       "run AssociationTest('weat6').run() and read .effect_size"),
    _c("weat-2", f"s(w, A, B) of {M.HAND_WORD!r}, computed by hand with numpy",
       lambda: float(_weat(M.WEAT_TEST, M.WORD_MODEL).frame().set_index("word").loc[M.HAND_WORD, "association"]),
       "number", "mean cosine with each Career word minus mean cosine with each Family word; cosine = "
       "u·v / (|u| |v|) on the raw GloVe vectors", rtol=1e-4),
    _c("weat-3", "the female name with the most negative association (closest to Family)",
       lambda: min((r.association, r.word) for r in _weat(M.WEAT_TEST, M.WORD_MODEL).frame().itertuples()
                   if r.set == "targ2")[1], "word",
       "sort result.frame() by 'association' and look at the targ2 rows"),
    _c("weat-4", "the target word whose removal lowers d the most",
       lambda: min(_loo_effect_sizes().items(), key=lambda kv: kv[1])[0], "word",
       "rerun the test once per target word with that word left out (AssociationTest(..., targ2=[...])) "
       "and compare the d values"),
    _c("weat-5", "d of weat6 without that word",
       lambda: min(_loo_effect_sizes().values()), "number",
       "the smallest of your leave-one-out effect sizes"),
    _c("weat-6", "|d| for single-word sets (door/curtain x dog/cat), sample standard deviation (ddof=1)",
       lambda: abs(_weat(None, M.WORD_MODEL, **{k: tuple(v) for k, v in M.SINGLE_WORD_SETS.items()})
                   .effect_size), "number",
       "AssociationTest(targ1=['door'], targ2=['curtain'], attr1=['dog'], attr2=['cat'], ddof=1); "
       "then try other words: does |d| change?"),
    # Assignment 2: SEAT
    _c("seat-1", "how many sentences sent-weat6 generates for attribute set A (Career)",
       lambda: len(_sentence(M.SEAT_TEST, M.CBOW_MODEL).sentences("attr1")), "number",
       "SentenceAssociationTest('sent-weat6').sentences('attr1'): one per word and template"),
    _c("seat-2", "d of sent-weat6 on the CBoW baseline (cbow-glove-6b-50d)",
       lambda: _sentence(M.SEAT_TEST, M.CBOW_MODEL).run().effect_size, "number",
       "SentenceAssociationTest('sent-weat6', model='cbow-glove-6b-50d').run().effect_size"),
    _c("seat-3", "d of the bleached double-bind test (sent-heilman_double_bind_competent_one_word) on MiniLM",
       lambda: _sentence(M.DOUBLE_BIND_BLEACHED, M.SENTENCE_MODEL).run().effect_size, "number",
       "SentenceAssociationTest('sent-heilman_double_bind_competent_one_word', model='all-MiniLM-L6-v2')"),
    _c("seat-4", "d of the same words in context (heilman_double_bind_competent_one_sentence) on MiniLM",
       lambda: _sentence(M.DOUBLE_BIND_CONTEXT, M.SENTENCE_MODEL).run().effect_size, "number",
       "SentenceAssociationTest('heilman_double_bind_competent_one_sentence', model='all-MiniLM-L6-v2')"),
    _c("seat-5", "which is larger, 'bleached' or 'context'?",
       lambda: "context" if (_sentence(M.DOUBLE_BIND_CONTEXT, M.SENTENCE_MODEL).run().effect_size
                            > _sentence(M.DOUBLE_BIND_BLEACHED, M.SENTENCE_MODEL).run().effect_size)
       else "bleached", "word", "compare your two effect sizes"),
    # Assignment 3: RIPA and debiasing
    _c("ripa-1", f"RIPA of {M.RIPA_WORD!r} along the relation vector of Bolukbasi's ten pairs",
       lambda: float(_relation_study().run().ripa[0]), "number",
       "RelationProjection(BOLUKBASI_DEFINITIONAL_PAIRS, ['nurse']).run().frame()"),
    _c("ripa-2", f"RIPA of {M.RIPA_WORD!r} by hand: first right singular vector of the differences, "
       "signed so the pairs project positively", lambda: float(_relation_study().run().ripa[0]), "number",
       "D = first-word vectors - second-word vectors; U, S, Vt = np.linalg.svd(D); b = Vt[0]; flip b if "
       "(D @ b).mean() < 0; RIPA = <w, b> on the raw (unnormalised) vector", rtol=1e-4),
    _c("ripa-3", "share of the differences' squared length along b",
       lambda: float(_relation_study().relation().explained_ratio), "number",
       "S[0]**2 / (S**2).sum() from the same SVD, or result.relation.explained_ratio", rtol=1e-4),
    _c("ripa-4", "d of weat6 after projecting the relation vector out of every vector",
       lambda: _debiased_d("debiased"), "number",
       "AssociationTest('weat6', model=study.debiased_model('relation')).run().effect_size"),
    _c("ripa-5", "d of weat6 after projecting out one random direction (seed 0): the control",
       lambda: _debiased_d("random"), "number",
       "AssociationTest('weat6', model=study.random_model('relation', seed=0)).run().effect_size"),
    _c("ripa-6", "does debiasing lower d by more than the random control? (True/False)",
       lambda: (_weat(M.WEAT_TEST, M.WORD_MODEL).effect_size - _debiased_d("debiased"))
       > (_weat(M.WEAT_TEST, M.WORD_MODEL).effect_size - _debiased_d("random")), "bool",
       "compare original - debiased with original - random"),
    # Assignment 4: likelihood tests (demo MLM)
    _c("llh-1", "CPS bias score (CrowS-Pairs convention: % of pairs where the stereotype wins)",
       lambda: _likelihood("cps").score, "number",
       "PairedLikelihood(LIKELIHOOD_PAIRS, model='embias-demo-mlm').run(metric='cps').score"),
    _c("llh-2", "AUL bias score, same pairs and convention",
       lambda: _likelihood("aul").score, "number", "run(metric='aul')"),
    _c("llh-3", "the indices of the pairs where CPS and AUL prefer different sentences (a set)",
       _disagreements, "set",
       "compare row.preferred of the two results' rows, pair by pair"),
    _c("llh-4", "pair 0's CPS score of the stereotypical sentence, summed by hand from its tokens",
       lambda: float(_likelihood("cps").rows[0].scores.stereo.score), "number",
       "np.nansum(scores.stereo.log_probs[scores.stereo.counted]): only the tokens both sentences share",
       rtol=1e-6),
    # Assignment 5: senses vs words
    _c("sense-1", f"how many WordNet 3.0 senses {M.SENSE_LEMMA!r} has (all parts of speech)", _n_senses,
       "number", "len(wordnet.senses('nurse'))"),
    _c("sense-2", "d of sense-weat7 on gloss vectors, sense level",
       lambda: float(_sense_levels()["sense"]), "number",
       "SenseAssociationTest('sense-weat7', model='gloss:all-MiniLM-L6-v2').run().levels()", rtol=1e-4),
    _c("sense-3", "d of sense-weat7 on the eq. 7 word vectors (mean of each lemma's sense vectors)",
       lambda: float(_sense_levels()["word_average"]), "number",
       "the 'word_average' row of .levels()", rtol=1e-4),
    _c("sense-4", f"which sense of {M.SENSE_LEMMA!r} is more female-associated, 'noun' or 'verb'",
       _more_female_sense, "word",
       "sense_gender_bias(test.model).frame(): the more negative bias of nurse's 'noun sense' and 'verb sense'"),
]
CHECKS: dict[str, Check] = {c.id: c for c in _CHECKS}
_RESULTS: dict[str, bool] = {}


def expected(check_id: str) -> Any:
    """The value the library computes for ``check_id`` (for instructors and tests)."""
    return _get(check_id).expected()


def _get(check_id: str) -> Check:
    if not isinstance(check_id, str) or check_id not in CHECKS:
        raise KeyError(f"unknown check {_short(check_id)}: the checks are {', '.join(CHECKS)}")
    return CHECKS[check_id]


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 60
_REPR.maxlist = _REPR.maxtuple = _REPR.maxset = _REPR.maxfrozenset = _REPR.maxdict = 8
_REPR.maxlevel = 2


def _short(value: Any) -> str:
    """A repr of at most ~80 characters, so a huge answer never floods the notebook."""
    text = _REPR.repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _kind_of(value: Any) -> str:
    """The type name a student recognises, with the shape of an array."""
    shape = getattr(value, "shape", None)
    return f"{type(value).__name__} of shape {tuple(shape)}" if shape is not None and shape != () else \
        type(value).__name__


def _plain(answer: Any, collection: bool) -> Any:
    """numpy (and pandas) answers as the Python values they stand for: a numpy scalar or a one-element
    array as its item; for a collection, an array as a flat list of Python values."""
    if isinstance(answer, np.generic):
        return answer.item()
    if isinstance(answer, str | bytes) or not hasattr(answer, "__array__"):
        return answer
    try:
        array = np.asarray(answer)
    except Exception:  # an object that claims __array__ but cannot give one: compare it as it is
        return answer
    if array.dtype == object or array.dtype.kind not in "biufUS":
        return answer
    if collection:
        return array.tolist() if array.ndim == 1 else answer
    return array.reshape(-1)[0].item() if array.size == 1 else answer


def _compare(c: Check, answer: Any, want: Callable[[], Any]) -> tuple[bool, str]:
    """(right?, why not) for one answer; ``want()`` (the library run) only once the answer's type fits."""
    if answer is None or answer is Ellipsis:
        return False, "no answer yet"
    answer = _plain(answer, collection=c.kind == "set")
    if c.kind == "number":
        if isinstance(answer, bool):
            return False, f"expected a number, got {answer} (a bool): give the value itself"
        try:
            got = float(answer)
        except (TypeError, ValueError, OverflowError):
            return False, f"expected a number, got {_kind_of(answer)} {_short(answer)}"
        if math.isnan(got):
            return False, "your answer is NaN"
        ok = math.isclose(got, float(want()), rel_tol=c.rtol, abs_tol=1e-9)
        return ok, "" if ok else f"{got:.6g} is not it"
    if c.kind == "word":
        if not isinstance(answer, str):
            return False, f"expected a word (a string), got {_kind_of(answer)} {_short(answer)}"
        ok = answer.strip().casefold() == str(want()).casefold()
        return ok, "" if ok else f"{_short(answer)} is not it"
    if c.kind == "bool":
        if not isinstance(answer, bool):
            return False, f"expected True or False, got {_kind_of(answer)} {_short(answer)}"
        ok = answer == bool(want())
        return ok, "" if ok else f"{answer} is not it"
    if c.kind == "set":
        if isinstance(answer, str | bytes) or not isinstance(answer, Iterable):
            return False, f"expected a collection (a set or list), got {_kind_of(answer)} {_short(answer)}"
        try:
            got_set = {_plain(x, collection=False) for x in answer}
        except TypeError:
            return False, (f"expected a collection of single values (numbers or words), got {_short(answer)}: "
                           "flatten it, e.g. set(x for row in answer for x in row)")
        ok = got_set == set(want())
        return ok, "" if ok else f"{_short(sorted(got_set, key=str))} is not it"
    raise ValueError(f"check {c.id}: unknown kind {c.kind!r}")


def check(check_id: str, answer: Any) -> CheckResult:
    """Compare ``answer`` with what the library computes for ``check_id``; print right/wrong and a hint.

    Returns a :class:`CheckResult` (truthy when right). Under nbgrader's autograder or validator
    (environment variable ``NBGRADER_EXECUTION``) a wrong answer raises ``AssertionError``.
    """
    c = _get(check_id)
    # a blank answer needs no library run
    ok, why = (False, "no answer yet") if answer is None or answer is Ellipsis else _compare(c, answer, c.expected)
    message = f"✔ [{c.id}] right: {c.question}" if ok else f"✘ [{c.id}] not yet ({why}): {c.question}. Hint: {c.hint}"
    _RESULTS[c.id] = ok
    print(message)
    if not ok and os.environ.get("NBGRADER_EXECUTION"):
        raise AssertionError(message)
    return CheckResult(c.id, ok, message)


def progress(prefix: str = "") -> dict[str, bool]:
    """The checks run in this kernel so far (id -> right), optionally those starting with ``prefix``."""
    done = {k: v for k, v in _RESULTS.items() if k.startswith(prefix)}
    print(f"{sum(done.values())} of {len(done)} checks right" + (f" ({prefix}*)" if prefix else ""))
    return done
