"""NLI probe stimuli (Dev et al. 2020): word lists, templates, lazy pairs, the authors' CSV layout."""

import csv
import io
import tracemalloc

import pytest

from embias_widgets.stimuli.nli_probes import (
    CSV_COLUMNS,
    PROBES,
    CsvPairs,
    PairFileError,
    ProbeError,
    Template,
    load_pairs,
    load_probe,
    pair_id,
    templates,
    user_probe,
    word_list,
    word_list_source,
    word_lists,
    write_pairs_csv,
)


def test_word_lists_match_the_paper_appendix():
    lists = word_lists()
    assert len(lists["occupations"]) == 162 and "accountant" in lists["occupations"]
    assert not {"nun", "salesman", "saleswoman"} & set(lists["occupations"])  # gendered words removed
    assert lists["gendered_words"] == ("man", "woman", "guy", "girl", "gentleman", "lady")
    assert len(lists["adherents"]) == 17  # "a word list of 17 adherents"
    assert len(lists["demonyms"]) == 32 and "Qatari" in lists["demonyms"]
    assert len(lists["polarity"]) == 25  # 26 printed, "terrible" twice
    assert len(lists["objects"]) == 95
    assert set(lists["food"]) <= set(lists["objects"]) and set(lists["vehicles"]) <= set(lists["objects"])
    assert len(lists["person_nouns"]) == 89 and {"acquaintance", "neighbor", "stranger"} <= set(lists["person_nouns"])
    assert "Dev, Li, Phillips & Srikumar" in word_list_source("occupations")
    assert "sunipa/On-Measuring" in word_list_source("person_nouns")
    verbs = sum((lists[g] for g in ("commerce_verbs", "eating_verbs", "driving_verbs", "interaction_verbs")), ())
    assert len(verbs) == len(set(verbs)) == 27  # the paper's 27 verbs, each in one group


def test_template_count_is_the_authors():
    t = templates()
    assert len(t) == 10 * 95 + 10 * 89 + 2 * 9 + 5 * 22 == 1968
    assert len(set(t)) == len(t)


def test_probe_sizes_are_known_up_front():
    assert len(load_probe("gender-occupation")) == 162 * 6 * 1968
    assert len(load_probe("gender-occupation-authors")) == 1_936_512  # metrics.md section 3
    assert len(load_probe("nationality-polarity")) == 25 * 32 * 1968
    assert len(load_probe("religion-polarity")) == 25 * 17 * 1968
    assert set(PROBES) >= {"gender-occupation", "nationality-polarity", "religion-polarity"}


def test_both_styles_by_name():
    tpl = Template("commerce_verbs", "bought", "phone")
    assert tpl.sentence("driver") == "A driver bought a phone ."  # authors' generator, the default
    assert tpl.sentence("driver", style="paper") == "The driver bought a phone."
    assert Template("eating_verbs", "ate", "apple").sentence("accountant") == "An accountant ate an apple ."
    assert tpl.sentence("evil", person=True) == "An evil person bought a phone ."
    assert tpl.sentence("French", style="paper", person=True) == "The French person bought a phone."
    with pytest.raises(ProbeError, match="unknown sentence style 'fancy'"):
        load_probe("gender-occupation", style="fancy")


def test_pairs_are_deterministic_with_stable_ids_and_index_arithmetic():
    probe = load_probe("gender-occupation")
    first = probe.pair(0)
    assert (first.premise, first.hypothesis) == ("An accountant bought an apple .", "A man bought an apple .")
    assert first.id == pair_id("occupations -> gendered_words", first.premise, first.hypothesis)
    i = (5 * 6 + 3) * 1968 + 1000
    p = probe.pair(i)
    assert (p.premise_word, p.hypothesis_word) == (word_list("occupations")[5], "girl")
    assert p.premise.startswith("A" if p.premise_word[0] not in "aeiou" else "An")
    again = load_probe("gender-occupation").pair(i)
    assert again == p
    chunk = probe.chunk(i - 2, i + 3)
    assert chunk.premises[2] == p.premise and chunk.ids[2] == p.id and chunk.start == i - 2
    assert [q.index for q in probe.iter_pairs(10, 13)] == [10, 11, 12]
    with pytest.raises(IndexError):
        probe.pair(len(probe))


def test_polarity_probe_sentences():
    p = load_probe("religion-polarity", style="paper").pair(0)
    assert p.premise == "The awful person bought an apple." and p.hypothesis == "The Adventist person bought an apple."
    assert p.pair_type == "polarized_adjectives -> religions"


def test_iterating_200k_pairs_keeps_memory_flat():
    probe = load_probe("gender-occupation")
    tracemalloc.start()
    n = 0
    for _ in probe.iter_pairs(0, 200_000):
        n += 1
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert n == 200_000 and peak < 2_000_000  # bytes: one pair at a time


def test_user_probes_and_bad_input():
    probe = user_probe(["rude", "kind"], ["Iraqi"], person=True)
    assert len(probe) == 2 * 1968 and probe.pair(0).premise == "A rude person bought an apple ."
    with pytest.raises(ProbeError, match="premise words is empty"):
        user_probe([], ["man"])
    with pytest.raises(ProbeError, match="hypothesis words item 1 is ''"):
        user_probe(["nurse"], ["man", ""])
    with pytest.raises(ProbeError, match="unknown probe 'gender-occupaton': choose one of gender-occupation"):
        load_probe("gender-occupaton")
    with pytest.raises(ProbeError, match="unknown probe"):
        load_pairs("nonsense")
    with pytest.raises(ProbeError, match="not the string"):
        user_probe("nurse", ["man"])


def test_csv_round_trip_in_the_authors_layout(tmp_path):
    probe = load_probe("gender-occupation", premise_words=["nurse", "chef"], hypothesis_words=["man", "lady"])
    path = tmp_path / "pairs.csv"
    assert write_pairs_csv(probe, path) == len(probe) == 2 * 2 * 1968
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert rows[1][2:4] == ["nurse", "man"] and rows[1][1] == "occupations -> gendered_words"
    pairs = CsvPairs(path, stride=100)
    assert len(pairs) == len(probe)
    for start, stop in ((0, 3), (99, 102), (5000, 5003), (len(probe) - 2, len(probe))):
        got = [(q.index, q.id, q.premise, q.hypothesis, q.premise_word, q.hypothesis_word, q.template_type)
               for q in pairs.iter_pairs(start, stop)]
        want = [(q.index, q.id, q.premise, q.hypothesis, q.premise_word, q.hypothesis_word, q.template_type)
                for q in probe.iter_pairs(start, stop)]
        assert got == want


def test_csv_with_commas_quotes_and_newlines_inside_fields(tmp_path):
    path = tmp_path / "odd.csv"
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["premise", "hypothesis", "premise_filler_word", "hypothesis_filler_word"])
    w.writerow(['The cook, tired, ate a "bagel".', "The man ate a bagel.", "cook", "man"])
    w.writerow(["Line one\nline two.", "The man sang.", "x", "man"])
    w.writerow(["Third.", "Fourth.", "y", "z"])
    path.write_text(buf.getvalue())
    pairs = CsvPairs(path, stride=1)
    got = list(pairs)
    assert [g.premise for g in got] == ['The cook, tired, ate a "bagel".', "Line one\nline two.", "Third."]
    assert next(iter(pairs.iter_pairs(2, 3))).hypothesis == "Fourth."
    assert got[0].id == pair_id("", got[0].premise, got[0].hypothesis)


@pytest.mark.parametrize(("text", "message"), [
    ("", "the file is empty"),
    ("premise,hypothesis\nA.,B.\n", "line 1: missing column.s. premise_filler_word, hypothesis_filler_word"),
    ("premise,hypothesis,premise_filler_word,hypothesis_filler_word\nA.,B.,a,b\nC.,D.,c\n", "line 3: 3 fields"),
    ("premise,hypothesis,premise_filler_word,hypothesis_filler_word\nA.,B.,a,b\n,D.,c,d\n", "line 3: empty premise"),
    ("premise,hypothesis,premise_filler_word,hypothesis_filler_word\n", "no pairs"),
    ('premise,hypothesis,premise_filler_word,hypothesis_filler_word\nA.,B.,a,b\n"C.,D.,c,d\n', "line 3"),
])
def test_malformed_csv_names_the_line(tmp_path, text, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(PairFileError, match=message):
        CsvPairs(path)
