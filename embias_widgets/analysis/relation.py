"""``RelationProjection``: RIPA along a relation vector, and debiasing by projection.

Given ordered pairs (``("she", "he")``, ...) and words, the study encodes them
with a static model, builds the relation vector ``b`` (first principal
component of the pairs' differences, Ethayarajh, Duvenaud & Hirst 2019,
Definition 2) and scores every word with ``RIPA(w) = <w, b>``. It also builds
debiased models (the relation direction or the span of the differences
projected out; Bolukbasi et al. 2016, Ethayarajh et al. 2019 §3) and their
random-direction controls (Dev et al. 2019), so that
:func:`weat_before_after` can put WEAT effect sizes side by side.

:func:`contrived_attribute_table` reruns Ethayarajh et al. (2019)'s Table 1:
with one word per set WEAT's effect size is always ±2 (``ddof=0``), so the
choice of attribute words alone decides the verdict for neutral targets.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..metrics import weat
from ..metrics.projection import (
    RelationVector,
    Subspace,
    difference_vectors,
    relation_subspace,
    relation_vector,
    ripa,
    span_subspace,
)
from ..models import OutOfVocabulary, StaticVectors, load_model
from ..models.static_vectors.debias import project_out_random, project_out_subspace
from ..palette import altair_scale, group_colors
from ..stimuli.projection_stimuli import ETHAYARAJH_TABLE1, ContrivedAttributeRow
from .association import AssociationTest

Pair = tuple[str, str]
SUBSPACE_KINDS = ("relation", "span")
DEFAULT_GROUP = "words"


class RelationInputError(ValueError):
    """Pairs or words that cannot be used as given: names the item and the fix."""


def clean_pairs(pairs: Iterable[Sequence[str]]) -> tuple[Pair, ...]:
    """Validate ordered pairs: each exactly two non-empty words (stripped)."""
    out: list[Pair] = []
    for i, pair in enumerate(pairs):
        if isinstance(pair, str):
            raise RelationInputError(
                f"pair {i} is the single string {pair!r}: give two words, e.g. ('she', 'he')"
            )
        words = [str(w).strip() for w in pair]
        if len(words) != 2:
            raise RelationInputError(
                f"pair {i} {tuple(pair)!r} has {len(words)} word(s): a pair needs exactly "
                "two (first, second), e.g. ('she', 'he')"
            )
        if not all(words):
            raise RelationInputError(
                f"pair {i} {tuple(pair)!r} has an empty word: fill it in or remove the pair"
            )
        out.append((words[0], words[1]))
    return tuple(out)


def clean_word_groups(
    words: Iterable[str] | Mapping[str, Iterable[str]],
) -> tuple[tuple[str, str], ...]:
    """``(group, word)`` for a flat list (group ``"words"``) or a ``{group: words}`` mapping.

    Words are stripped; empty ones and repeats within a group are dropped.
    """
    if isinstance(words, str):
        raise RelationInputError(
            f"words must be a list of words, got the string {words!r}: use [{words!r}]"
        )
    groups = words.items() if isinstance(words, Mapping) else [(DEFAULT_GROUP, words)]
    out: list[tuple[str, str]] = []
    for group, items in groups:
        if isinstance(items, str):
            raise RelationInputError(
                f"group {group!r} must be a list of words, got the string {items!r}"
            )
        seen: set[str] = set()
        for item in items:
            word = str(item).strip()
            if word and word not in seen:
                seen.add(word)
                out.append((str(group), word))
    return tuple(out)


@dataclass(frozen=True)
class RelationProjectionResult:
    """RIPA scores of words along one relation vector.

    Attributes
    ----------
    model
        Model name.
    pairs
        The pairs that defined ``relation`` (those fully in the vocabulary).
    relation
        The relation vector and its singular values.
    words, groups, ripa, norms
        One entry per scored word: its group, ``<w, b>`` and ``||w||``.
    pair_ripa
        ``(len(pairs), 2)``: RIPA of each pair's first and second word.
    oov
        Words (from pairs or word lists) not in the vocabulary.
    notes
        What was left out and why.
    """

    model: str
    pairs: tuple[Pair, ...]
    relation: RelationVector
    words: tuple[str, ...]
    groups: tuple[str, ...]
    ripa: np.ndarray
    norms: np.ndarray
    pair_ripa: np.ndarray
    oov: tuple[OutOfVocabulary, ...]
    notes: tuple[str, ...]

    @property
    def axis_label(self) -> str:
        """Which way the axis points: towards the first words of the pairs."""
        firsts = ", ".join(p[0] for p in self.pairs[:2])
        seconds = ", ".join(p[1] for p in self.pairs[:2])
        more = ", ..." if len(self.pairs) > 2 else ""
        return f"RIPA = <w, b>   (← {seconds}{more} | {firsts}{more} →)"

    def summary(self) -> str:
        return (
            f"relation vector from {len(self.pairs)} pair(s) on {self.model}: first component "
            f"carries {self.relation.explained_ratio:.0%} of the differences' squared length"
        )

    def table(self) -> Any:
        """pandas DataFrame: word, group, ripa, norm and ``cos(w, b) = ripa / norm``."""
        import pandas as pd

        return pd.DataFrame(
            {
                "word": list(self.words),
                "group": list(self.groups),
                "ripa": self.ripa,
                "norm": self.norms,
                "cosine": self.ripa / np.where(self.norms > 0, self.norms, 1.0),
            },
            columns=["word", "group", "ripa", "norm", "cosine"],
        )

    def pair_table(self) -> Any:
        """pandas DataFrame: each defining pair's words and their RIPA."""
        import pandas as pd

        return pd.DataFrame(
            {
                "first": [p[0] for p in self.pairs],
                "second": [p[1] for p in self.pairs],
                "ripa_first": self.pair_ripa[:, 0],
                "ripa_second": self.pair_ripa[:, 1],
            },
            columns=["first", "second", "ripa_first", "ripa_second"],
        )

    def chart(self, *, include_pairs: bool = True) -> Any:
        """altair chart: words along the relation axis (x = RIPA), coloured by group."""
        import altair as alt
        import pandas as pd

        data = self.table()[["word", "group", "ripa"]]
        if include_pairs and self.pairs:
            pair_rows = pd.DataFrame(
                {
                    "word": [w for p in self.pairs for w in p],
                    "group": ["pairs: first", "pairs: second"] * len(self.pairs),
                    "ripa": self.pair_ripa.reshape(-1),
                }
            )
            data = pd.concat([pair_rows, data], ignore_index=True)
        base = alt.Chart(data, title=self.summary())
        y = alt.Y("group:N", title=None, sort=None)
        points = base.mark_circle(size=70).encode(
            x=alt.X("ripa:Q", title=self.axis_label),
            y=y,
            color=alt.Color("group:N", title="group", sort=None, scale=altair_scale(group_colors(data["group"]))),
            tooltip=["word", "group", alt.Tooltip("ripa:Q", format="+.3f")],
        )
        labels = base.mark_text(align="left", dx=5, dy=-7, fontSize=10, angle=330).encode(
            x="ripa:Q", y=y, text="word:N"
        )
        zero = alt.Chart(pd.DataFrame({"ripa": [0.0]})).mark_rule(color="#999").encode(x="ripa:Q")
        return (zero + points + labels).properties(width=560)


class RelationProjection:
    """RIPA of words along the relation vector of ordered pairs.

    Parameters
    ----------
    pairs
        Ordered pairs ``(first, second)``; ``b`` points towards the first words
        (Ethayarajh et al. 2019: the pair order gives the direction).
    words
        Words to score: a list, or ``{group: words}`` for a coloured plot.
    model
        A registered name (default ``"glove-6b-50d"``), a path, or loaded
        :class:`StaticVectors`.
    model_options
        Passed to :func:`embias_widgets.models.load_model`.

    Pairs or words not in the vocabulary are left out with a note (see
    ``result.notes``); a study with no usable pair raises
    :class:`RelationInputError`.
    """

    def __init__(
        self,
        pairs: Iterable[Sequence[str]],
        words: Iterable[str] | Mapping[str, Iterable[str]] = (),
        *,
        model: Any = "glove-6b-50d",
        **model_options: Any,
    ) -> None:
        self.model = load_model(model, **model_options)
        if not hasattr(self.model, "vector"):
            raise RelationInputError(
                f"RelationProjection needs static word vectors, got {type(self.model).__name__}: "
                "use load_model('glove-6b-50d') or a vector file"
            )
        self.pairs = clean_pairs(pairs)
        self.word_groups = clean_word_groups(words)

    # -- editing -----------------------------------------------------------
    def set_pairs(self, pairs: Iterable[Sequence[str]]) -> None:
        self.pairs = clean_pairs(pairs)

    def set_words(self, words: Iterable[str] | Mapping[str, Iterable[str]]) -> None:
        self.word_groups = clean_word_groups(words)

    # -- encoding ----------------------------------------------------------
    def encoded_pairs(
        self,
    ) -> tuple[tuple[Pair, ...], np.ndarray, np.ndarray, list[str], list[OutOfVocabulary]]:
        """Pairs in the vocabulary, their vectors ``X`` (first) and ``Y`` (second), notes, OOV."""
        if not self.pairs:
            raise RelationInputError("no pairs: add at least one ordered pair, e.g. ('she', 'he')")
        kept, xs, ys, notes, oov = [], [], [], [], []
        for first, second in self.pairs:
            enc = self.model.encode([first, second])
            if len(enc.items) == 2:
                kept.append((first, second))
                xs.append(enc.vectors[0])
                ys.append(enc.vectors[1])
                continue
            oov.extend(enc.oov)
            why = "; ".join(o.message() for o in enc.oov)
            notes.append(f"pair ({first!r}, {second!r}) left out: {why}")
        if not kept:
            raise RelationInputError(
                f"no pair has both words in the vocabulary of "
                f"{getattr(self.model, 'name', 'the model')} "
                f"({' | '.join(notes)}): check spelling or case"
            )
        return tuple(kept), np.vstack(xs), np.vstack(ys), notes, oov

    def relation(self) -> RelationVector:
        """The relation vector of the pairs in the vocabulary."""
        _, X, Y, _, _ = self.encoded_pairs()
        return relation_vector(X, Y)

    def subspace(self, kind: str = "relation", *, rtol: float | None = None) -> Subspace:
        """``"relation"``: the 1-d relation vector; ``"span"``: span of the differences."""
        if kind not in SUBSPACE_KINDS:
            raise ValueError(f"`kind` must be in {SUBSPACE_KINDS}, got {kind!r}")
        _, X, Y, _, _ = self.encoded_pairs()
        if kind == "relation":
            return relation_subspace(relation_vector(X, Y))
        return span_subspace(difference_vectors(X, Y), rtol=rtol)

    # -- running -----------------------------------------------------------
    def run(self) -> RelationProjectionResult:
        """Build ``b`` and score every word (``RIPA(w) = <w, b>``)."""
        pairs, X, Y, notes, oov = self.encoded_pairs()
        rel = relation_vector(X, Y)
        notes.extend(_mirrored_notes(pairs))
        items = [w for _, w in self.word_groups]
        enc = self.model.encode(items)
        oov = oov + list(enc.oov)
        if enc.oov:
            notes.append(
                f"{len(enc.oov)} word(s) not in the vocabulary left out: "
                + "; ".join(o.message() for o in enc.oov)
            )
        kept = set(enc.items)
        groups = [g for g, w in self.word_groups if w in kept]
        dim = rel.dim
        vectors = enc.vectors if len(enc.items) else np.zeros((0, dim))
        scores = vectors @ rel.vector
        pair_scores = np.column_stack([ripa(X, rel), ripa(Y, rel)])
        return RelationProjectionResult(
            model=getattr(self.model, "name", type(self.model).__name__),
            pairs=pairs,
            relation=rel,
            words=enc.items,
            groups=tuple(groups),
            ripa=scores,
            norms=np.linalg.norm(vectors, axis=1),
            pair_ripa=pair_scores,
            oov=tuple(oov),
            notes=tuple(notes),
        )

    def table(self) -> Any:
        """Shortcut: ``run().table()``."""
        return self.run().table()


    def chart(self, **options: Any) -> Any:
        """Shortcut: ``run().chart()``."""
        return self.run().chart(**options)

    # -- debiasing ---------------------------------------------------------
    def debiased_model(
        self, kind: str = "relation", *, rtol: float | None = None, **options: Any
    ) -> StaticVectors:
        """A NEW model with the ``kind`` subspace projected out (the study's model is unchanged).

        ``options`` (``mask``, ``keep``, ``name``) go to
        :func:`embias_widgets.models.static_vectors.debias.project_out_subspace`.
        """
        return project_out_subspace(self.model, self.subspace(kind, rtol=rtol), **options)

    def random_model(
        self, kind: str = "relation", *, seed: int = 0, rtol: float | None = None, **options: Any
    ) -> StaticVectors:
        """Control: a NEW model with as many random directions as ``kind`` has, projected out."""
        k = self.subspace(kind, rtol=rtol).rank
        return project_out_random(self.model, k, seed=seed, **options)

    def compare_weat(
        self,
        tests: Iterable[Any] = ("weat6", "weat7", "weat8"),
        *,
        kind: str = "relation",
        seed: int = 0,
        n_random: int = 1,
        **test_options: Any,
    ) -> Any:
        """WEAT before and after debiasing, and after random projections (a DataFrame).

        Columns ``original``, ``debiased`` and ``random`` hold effect sizes,
        ``p_*`` the p-values. With ``n_random > 1`` the ``random`` columns are
        means over seeds ``seed, seed + 1, ...`` (Dev et al. 2019 average 8).
        """
        if n_random < 1:
            raise ValueError(f"`n_random` must be at least 1, got {n_random}")
        tests = list(tests)
        models: dict[str, Any] = {"original": self.model, "debiased": self.debiased_model(kind)}
        frame = weat_before_after(tests, models, **test_options)
        randoms = [
            weat_before_after(
                tests, {"random": self.random_model(kind, seed=seed + i)}, **test_options
            )
            for i in range(n_random)
        ]
        frame["random"] = np.mean([r["random"].to_numpy(dtype=float) for r in randoms], axis=0)
        frame["p_random"] = np.mean([r["p_random"].to_numpy(dtype=float) for r in randoms], axis=0)
        return frame[
            ["test", "original", "debiased", "random", "p_original", "p_debiased", "p_random"]
        ]


def weat_before_after(tests: Iterable[Any], models: Mapping[str, Any], **test_options: Any) -> Any:
    """WEAT effect sizes (and p-values) of each test under each model, side by side.

    ``models`` maps a column label to a model (``{"original": glove,
    "debiased": project_out_subspace(glove, ...)}``); ``tests`` are bundled
    names, files or specs for :class:`AssociationTest`; ``test_options`` go to
    it as well (``n_samples``, ``seed``, ...). Returns a DataFrame with one row
    per test: ``test``, one effect-size column per label, then ``p_<label>``.
    """
    import pandas as pd

    rows = []
    for test in tests:
        row: dict[str, Any] = {}
        for label, model in models.items():
            result = AssociationTest(test, model=model, **test_options).run()
            row["test"] = result.test
            row[label] = result.effect_size
            row[f"p_{label}"] = result.pvalue
        rows.append(row)
    columns = ["test", *models, *(f"p_{label}" for label in models)]
    return pd.DataFrame(rows, columns=columns)


# -- Ethayarajh et al. (2019), Table 1 -------------------------------------------
def _verdict(d: float | None, row: ContrivedAttributeRow) -> str:
    x, y = row.targets
    if d is None or d == 0:
        return f"{x} and {y} equally associated"
    label = row.attribute_labels[0] if d > 0 else row.attribute_labels[1]
    return f"{x} more {label}-associated than {y}"


def _single_word_weat(model: Any, row: ContrivedAttributeRow, ddof: int) -> Any:
    words = (*row.targets, *row.attributes)
    enc = model.encode(words)
    if enc.oov:
        raise RelationInputError(
            "; ".join(o.message() for o in enc.oov) + ": choose other words or another model"
        )
    X, Y, A, B = (v[None, :] for v in enc.vectors)
    return weat(X, Y, A, B, ddof=ddof, method="exact")


def contrived_attribute_table(
    model: Any = "glove-6b-50d",
    rows: Iterable[ContrivedAttributeRow] = ETHAYARAJH_TABLE1,
    *,
    ddof: int = 0,
) -> Any:
    """Rerun Ethayarajh et al. (2019), Table 1 on ``model`` (a DataFrame).

    With one target word per set and one attribute word per set, WEAT's
    effect size is ``(s(x) - s(y)) / std{s(x), s(y)} = ±2`` with ``ddof=0``
    (their Proposition 2; ``±sqrt 2`` with ``ddof=1``), whatever the words: the
    sign alone, i.e. the contrived choice of ``A`` and ``B``, decides the
    verdict. The exact permutation test has two splits, so its one-sided
    p-value is 0.5 or 1 here. ``verdict`` reads the sign of ``d``; ``paper_*``
    columns are the published SGNS/Wikipedia numbers; ``flips`` says whether
    the verdicts for that target pair disagree across attribute choices.
    """
    import pandas as pd

    model = load_model(model)
    records = []
    for row in rows:
        core = _single_word_weat(model, row, ddof)
        records.append(
            {
                "targets": " vs ".join(row.targets),
                "attributes": " vs ".join(row.attributes),
                "statistic": core.statistic,
                "effect_size": core.effect_size,
                "pvalue": core.pvalue,
                "verdict": _verdict(core.effect_size, row),
                "paper_statistic": row.paper_statistic,
                "paper_effect_size": row.paper_effect_size,
                "paper_pvalue": row.paper_pvalue,
                "paper_outcome": row.paper_outcome,
            }
        )
    frame = pd.DataFrame(records)
    frame["flips"] = frame.groupby("targets")["verdict"].transform(lambda v: v.nunique() > 1)
    return frame


def contrived_attribute_search(
    targets: tuple[str, str],
    first: Iterable[str],
    second: Iterable[str],
    *,
    labels: tuple[str, str] = ("female", "male"),
    model: Any = "glove-6b-50d",
    ddof: int = 0,
) -> Any:
    """WEAT for every single-word attribute pair ``({a}, {b})``, a in ``first``, b in ``second``.

    Shows how easily a verdict is contrived (Ethayarajh et al. 2019, §4): each
    row is one WEAT with ``X = {targets[0]}``, ``Y = {targets[1]}``,
    ``A = {a}``, ``B = {b}``; ``labels`` name what ``first`` and ``second``
    stand for. Returns a DataFrame sorted by the test statistic.
    """
    import pandas as pd

    model = load_model(model)
    records = []
    for a, b in itertools.product(first, second):
        row = ContrivedAttributeRow(tuple(targets), (a, b), labels, np.nan, np.nan, np.nan, "")
        core = _single_word_weat(model, row, ddof)
        records.append(
            {
                "attributes": f"{a} vs {b}",
                "statistic": core.statistic,
                "effect_size": core.effect_size,
                "verdict": _verdict(core.effect_size, row),
            }
        )
    return pd.DataFrame(records).sort_values("statistic", ignore_index=True)


def _mirrored_notes(pairs: Sequence[Pair]) -> list[str]:
    """Pairs given in both orders: their differences cancel (d and -d), so they add nothing to the
    relation vector's direction and, if all pairs are mirrored, its sign is arbitrary."""
    seen = set(pairs)
    mirrored = [(a, b) for a, b in pairs if (b, a) in seen and a < b]
    if not mirrored:
        return []
    shown = ", ".join(f"({a!r}, {b!r})" for a, b in mirrored)
    return [
        f"pair(s) {shown} also given in the other order: their differences cancel (d and -d), so they "
        "carry no direction and the sign of b can be arbitrary; keep one order per pair (the order gives "
        "the direction, Ethayarajh et al. 2019)"
    ]
