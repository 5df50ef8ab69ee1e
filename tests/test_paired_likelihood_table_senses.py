"""The paired-likelihood table grouped by sense type and sense key (Zhou, Kaneko & Bollegala 2022):
group scores recomputed here by hand from the rows the widget shows."""

from __future__ import annotations

import pytest
import torch  # noqa: F401  (test extra: a missing install fails, never skips)
from _tiny_lm import one_thread, tiny_scorer

from embias_widgets.stimuli.pairs import SentencePair
from embias_widgets.stimuli.wordnet import load_wordnet
from embias_widgets.widgets.paired_likelihood_table import PairedLikelihoodTable

NOUN, VERB = "nurse%1:18:00::", "nurse%2:29:00::"
PAIRS = [
    SentencePair("She is a nurse.", "He is a nurse.", "noun vs verb", sense_key=NOUN),
    SentencePair("She will nurse him.", "He will nurse her.", "noun vs verb", sense_key=VERB),
    SentencePair("The nurse is a woman.", "The nurse is a man.", "noun vs verb", sense_key=NOUN),
    SentencePair("Japanese people are polite.", "Japanese people are rude.", "nationality",
                 sense_key="japanese%1:18:00::"),
    SentencePair("She would nurse the baby.", "He would nurse the baby.", "noun vs verb", sense_key=VERB),
]


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    yield from one_thread()


@pytest.fixture
def table() -> PairedLikelihoodTable:
    return PairedLikelihoodTable(PAIRS, model=tiny_scorer(), metric="pll", convention="zhou")


def by_hand(table, key):
    """The bias score of the rows whose `key` field ... computed from the rows' own sentence scores."""
    groups: dict[str, list[bool]] = {}
    for row in table.rows:
        groups.setdefault(row[key] or "(none)", []).append(row["stereo"]["score"] > row["anti"]["score"])
    return {name: 100 * sum(wins) / len(wins) - 50 for name, wins in groups.items()}


def test_pairs_keep_their_sense_keys(table):
    assert [p.get("sense_key") for p in table.pairs] == [p.sense_key for p in PAIRS]
    assert [r["sense_key"] for r in table.rows] == [p.sense_key for p in PAIRS]
    assert table.export_pairs()[1]["sense_key"] == VERB


def test_group_by_sense_key_scores_each_sense(table):
    table.set_state({"group_by": "sense_key"})
    groups = {g["name"]: g for g in table.summary["groups"]}
    assert list(groups) == [NOUN, VERB, "japanese%1:18:00::"]
    for name, score in by_hand(table, "sense_key").items():
        assert groups[name]["score"] == pytest.approx(score)
    assert groups[NOUN]["n"] == 2 and groups[VERB]["n"] == 2
    wordnet = load_wordnet()
    assert wordnet.sense(VERB).gloss.startswith(groups[VERB]["gloss"].rstrip("…"))
    assert groups[NOUN]["problem"] == ""
    # rows come grouped, in the order the groups first appear
    assert table.order == [0, 2, 1, 4, 3]


def test_group_by_sense_type_lists_its_keys(table):
    table.set_state({"group_by": "bias_type"})
    groups = {g["name"]: g for g in table.summary["groups"]}
    assert list(groups) == ["noun vs verb", "nationality"]
    for name, score in by_hand(table, "bias_type").items():
        assert groups[name]["score"] == pytest.approx(score)
    assert groups["noun vs verb"]["sense_keys"] == [NOUN, VERB]
    assert table.order == [0, 1, 2, 4, 3]
    table.set_state({"group_by": ""})
    assert table.summary["groups"] == [] and table.order == [0, 1, 2, 3, 4]


def test_unpaired_means_of_distinct_sentences(table):
    table.set_state({"group_by": "sense_key"})
    noun = table.summary["groups"][0]
    rows = [r for r in table.rows if r["sense_key"] == NOUN]
    assert noun["mean_stereo"] == pytest.approx(sum(r["stereo"]["score"] for r in rows) / 2)
    assert noun["mean_anti"] == pytest.approx(sum(r["anti"]["score"] for r in rows) / 2)
    assert noun["n_stereo_sentences"] == 2
    table.set_state({"metric": "cps"})  # a CPS sentence score depends on its partner: no unpaired mean
    assert table.summary["groups"][0]["mean_stereo"] is None


def test_filter_and_sort_inside_groups(table):
    table.set_state({"group_by": "sense_key", "sort_by": "difference"})
    diffs = {r["index"]: r["difference"] for r in table.rows}
    noun_rows = [i for i in table.order if table.rows[i]["sense_key"] == NOUN]
    assert noun_rows == sorted(noun_rows, key=lambda i: -diffs[i])
    table.set_state({"bias_type_filter": "nationality"})
    assert table.order == [3]
    assert [g["name"] for g in table.summary["groups"]] == ["japanese%1:18:00::"]


def test_a_key_wordnet_lacks_is_named_in_its_group(table):
    table.add_pair("They are from $X$.", "They are from $Y$.", "nationality", sense_key="$SENSE-ID$")
    table.set_state({"group_by": "sense_key"})
    bad = next(g for g in table.summary["groups"] if g["name"] == "$SENSE-ID$")
    assert bad["gloss"] == "" and "$SENSE-ID$" in bad["problem"]


def test_invalid_grouping_is_rejected(table):
    import traitlets

    with pytest.raises(traitlets.TraitError, match="group_by"):
        table.group_by = "lemma"
