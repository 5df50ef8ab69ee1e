"""Out-of-vocabulary suggestions cost bounded work (issue 13, class 4): the vocabulary is indexed
once, each word costs about a millisecond whatever the vocabulary's size, and only the first
SUGGEST_LIMIT unknown items of an encode get suggestions (the encode says so)."""

from __future__ import annotations

import random
import string
import time

import numpy as np

from embias_widgets.analysis import AssociationTest
from embias_widgets.models import StaticVectors
from embias_widgets.models.static_vectors.vectors import SUGGEST_LIMIT


def synthetic_vectors(n: int = 400_000) -> StaticVectors:
    rng = random.Random(0)
    words = list(dict.fromkeys("".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 12))) for _ in range(n)))
    vectors = StaticVectors(words, np.zeros((len(words), 2), dtype=np.float32), lowercase=False)
    vectors.progress = False
    return vectors


def test_many_unknown_items_stay_fast_and_the_bound_is_said() -> None:
    vectors = synthetic_vectors()
    known = vectors.words[:50]
    typos = [w[:-1] + "7" for w in known]  # one replacement away (no vocabulary word has a digit)
    rng = random.Random(1)
    noise = ["".join(rng.choices(string.ascii_lowercase, k=9)) + "qq" for _ in range(3 * SUGGEST_LIMIT)]
    started = time.perf_counter()
    enc = vectors.encode(typos + noise)
    elapsed = time.perf_counter() - started
    # generous: about 3 s on an idle machine (the unbounded version took 75 ms per word here, minutes in all)
    assert elapsed < 120
    assert len(enc.oov) == len(typos) + len(noise)
    hits = sum(known[i] in enc.oov[i].suggestions for i in range(len(typos)))
    assert hits == len(typos)  # a word one edit away is always found
    assert all(o.suggestions == () for o in enc.oov[SUGGEST_LIMIT:])
    assert enc.notes == (
        f"{len(typos) + len(noise):,} items are not in the vocabulary; close matches are suggested for the "
        f"first {SUGGEST_LIMIT:,} only",
    )


def test_fuzzy_pool_is_a_superset_of_what_difflib_would_accept() -> None:
    import difflib

    vectors = synthetic_vectors(60_000)
    rng = random.Random(2)
    for _ in range(30):
        word = rng.choice(vectors.words)
        query = word[: len(word) // 2] + "x" + word[len(word) // 2 + 1 :]
        full = [w for w in vectors.words if w[:1] == query[:1] and abs(len(w) - len(query)) <= 1]
        shapes = vectors._shape_index()
        capped = {w for length in (len(query) - 1, len(query), len(query) + 1)
                  for w in shapes.get((query[0], length), ())}
        expected = {w for w in full if w in capped and difflib.SequenceMatcher(None, query, w).ratio() >= 0.75}
        assert expected <= set(vectors._fuzzy_pool(query, cutoff=0.75))


def test_the_bound_note_reaches_the_result() -> None:
    vectors = StaticVectors(["rose", "ant", "love", "hate"], np.eye(4), lowercase=False)
    many = ["rose", *(f"zz{i}" for i in range(SUGGEST_LIMIT + 5))]
    result = AssociationTest(targ1=many, targ2=["ant"], attr1=["love"], attr2=["hate"], model=vectors).run()
    assert any("close matches are suggested for the first" in n for n in result.notes)
