"""SEAT templates: the sentences printed in May et al. (2019) come out exactly,
and every bundled sentence test equals sent-bias's published file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _missing import skip_unless_ci

from embias_widgets.stimuli import SET_KEYS, read_test_file, write_test_file
from embias_widgets.stimuli.sentence_tests import (
    SentenceSet,
    load_sentence_test,
    sentence_test_from_words,
    sentence_test_names,
)
from embias_widgets.stimuli.templates import TEMPLATE_KINDS, fill, generate_sentences

PAPER_FILE = "002_644f3d64c870c31b.txt"  # May et al. (2019) with its appendix
ROLES = {"Target X": "targ1", "Target Y": "targ2", "Attribute A": "attr1", "Attribute B": "attr2"}


def _typography(text: str) -> str:
    """The paper's typesetting -> plain text: curly quotes and apostrophes."""
    return text.replace("’", "'").replace("“", '"').replace("”", '"')


def _quoted(text: str) -> list[str]:
    return [_typography(s) for s in re.findall(r"“(.*?)”", text)]


@pytest.fixture(scope="module")
def paper(shared_data: Path) -> str:
    path = shared_data.parent / "papers" / PAPER_FILE  # the paper's text: in ../shared, not fetched
    if not path.is_file():
        skip_unless_ci(f"{path} not found: May et al.'s paper text is only in ../shared/papers")
    return path.read_text(encoding="utf-8")


def _section(paper: str, heading: str) -> str:
    start = paper.index(heading)
    end = paper.find("\nb.", start + len(heading))
    return paper[start : end if end > 0 else None]


def _printed_sets(section: str) -> dict[str, tuple[list[str], bool]]:
    """set key -> (quoted sentences, whether the paper abbreviates with 'etc.')."""
    out = {}
    for line in section.splitlines():
        for role, key in ROLES.items():
            if line.startswith(role) and "“" in line:
                out[key] = (_quoted(line), line.rstrip().endswith("etc."))
    return out


@pytest.mark.parametrize(
    ("heading", "test"),
    [
        ("b.1.1 Example: Caliskan Test 3", "sent-weat3"),
        ("b.2.2 Example: Sentence-Level", "sent-angry_black_woman_stereotype"),
        ("b.3.1 Example: Competent, Single Sentence", "heilman_double_bind_competent_one_sentence"),
        ("b.3.2 Example: Likable, Single Sentence", "heilman_double_bind_likable_one_sentence"),
    ],
)
def test_appendix_examples_come_out_as_printed(paper, heading, test):
    printed = _printed_sets(_section(paper, heading))
    assert set(printed) == set(SET_KEYS), f"could not read the four sets of {heading}"
    spec = load_sentence_test(test)
    for key, (sentences, abbreviated) in printed.items():
        generated = list(getattr(spec, key).sentences())
        if abbreviated:  # the paper prints the first sentences, then "etc."
            assert generated[: len(sentences)] == sentences, (test, key)
        else:
            assert generated == sentences, (test, key)


def test_table2_sentences_are_generated(paper):
    """Table 2: subsets of the bleached sentence version of Caliskan Test 3."""
    rows = [line for line in paper.splitlines()
            if line.startswith(("European American names: “", "African American names: “"))]
    assert len(rows) == 2
    spec = load_sentence_test("sent-weat3")
    for row, (target, attribute) in zip(rows, [("targ1", "attr1"), ("targ2", "attr2")], strict=True):
        left, right = re.split(r"(?:Pleasant|Unpleasant):", row)
        assert set(_quoted(left)) <= set(getattr(spec, target).sentences())
        assert set(_quoted(right)) <= set(getattr(spec, attribute).sentences())
    # the examples quoted in the issue and in metrics.md, all from the paper
    assert "That can kill." in spec.attr2.sentences()
    assert "This is freedom." in spec.attr1.sentences()
    assert "The person's name is Adam." in spec.targ1.sentences()
    weat1 = load_sentence_test("sent-weat1")
    assert {"This is an aster.", "These are asters."} <= set(weat1.targ1.sentences())


def _script(paper: str, heading: str) -> tuple[str, str]:
    section = _section(paper, heading)
    lines = [line.strip() for line in section.splitlines()]
    element = next(line for line in lines if line.startswith("“") and line.endswith("”"))
    attribute = next(line for line in lines if line.startswith("An attribute element"))
    return _typography(element[1:-1]), _quoted(attribute)[0]


def _sentences(text: str) -> list[str]:
    return re.split(r"(?<=\.) (?=[A-Z])", text)


def _as_male(text: str, name: str, male: str) -> str:
    swaps = {"She": "He", "she": "he", "Her": "His", "her": "his"}
    out = re.sub(r"\b(She|she|Her|her)\b", lambda m: swaps[m.group(1)], text)
    return out.replace(name, male, 1)


@pytest.mark.parametrize(
    ("heading", "attr", "name", "attribute_word"),
    [
        ("b.3.3 Example: Competent, Multiple Sentence", "competent", "Donna", "strong"),
        ("b.3.4 Example: Likable, Multiple Sentence", "likable", "Lisa", "agreeable"),
    ],
)
def test_multi_sentence_scripts_match_the_appendix(paper, heading, attr, name, attribute_word):
    element, attribute = _script(paper, heading)
    parts = _sentences(element)
    assert parts[0].startswith(f"{name} is the assistant vice president")
    expected = {  # appendix B.3: _1- all, _1+3- without sentence 2, _1 sentence 1 only
        "1-": element,
        "1+3-": " ".join([parts[0], *parts[2:]]),
        "1": parts[0],
    }
    for suffix, text in expected.items():
        spec = load_sentence_test(f"heilman_double_bind_{attr}_{suffix}")
        female = dict(zip(spec.targ2.words, spec.targ2.sentences(), strict=True))
        assert female[name] == text, suffix
        male = dict(zip(spec.targ1.words, spec.targ1.sentences(), strict=True))
        assert male["John"] == _as_male(text, name, "John"), suffix
        assert attribute in spec.attr1.sentences() + spec.attr2.sentences()
        assert attribute == f"The assistant vice president is {attribute_word}."


def _published(shared_data: Path) -> dict[str, dict]:
    folder = shared_data / "seat_tests"
    files = [*folder.glob("sent-*.jsonl"), *folder.glob("*_one_sentence.jsonl")]
    return {f.name.removesuffix(".jsonl"): json.loads(f.read_text(encoding="utf-8")) for f in files}


def test_every_bundled_sentence_test_equals_the_published_file(shared_data):
    published = _published(shared_data)
    assert len(published) == 21
    assert set(published) <= set(sentence_test_names()), "every published sentence test is bundled"
    mismatches = []
    for name, sets in published.items():
        spec = load_sentence_test(name).sentence_spec()
        for key in SET_KEYS:
            ours = getattr(spec, key)
            if ours.category != sets[key]["category"] or list(ours.examples) != sets[key]["examples"]:
                mismatches.append(f"{name}.{key}")
    assert mismatches == []


def test_published_subsets_only_equalise_target_sizes(shared_data):
    """Where a published file leaves generated sentences out, it keeps a subset so
    that both target sets have the same size (sent-weat2, 7, 7b, 8, 8b, 9)."""
    published = _published(shared_data)
    trimmed = set()
    for name in published:
        spec = load_sentence_test(name)
        for key, sentence_set in spec.sets().items():
            if sentence_set.omit:
                trimmed.add(name)
                assert key in ("targ1", "targ2"), (name, key)
                full = generate_sentences(sentence_set.words, sentence_set.word_kinds(),
                                          plurals=sentence_set.plurals)
                assert set(sentence_set.omit) <= set(full), "omit only generated sentences"
        assert (name not in trimmed) or len(spec.targ1.sentences()) == len(spec.targ2.sentences())
    assert trimmed == {"sent-weat2", "sent-weat7", "sent-weat7b", "sent-weat8", "sent-weat8b",
                       "sent-weat9"}


def test_a_word_test_with_kinds_gives_the_published_sentence_test(shared_data):
    """May et al.'s construction: names and nouns, words of other kinds from the lexicon."""
    spec = sentence_test_from_words(
        "weat3", {"targ1": "name", "targ2": "name", "attr1": "noun", "attr2": "noun"}
    )
    assert spec.name == "sent-weat3"
    published = _published(shared_data)["sent-weat3"]
    for key in SET_KEYS:
        assert list(getattr(spec, key).sentences()) == published[key]["examples"]


def test_sentence_spec_round_trips_through_a_sent_bias_file(shared_data, tmp_path):
    path = tmp_path / "sent-weat6b.jsonl"
    write_test_file(load_sentence_test("sent-weat6b").sentence_spec(), path)
    back = read_test_file(path)
    published = _published(shared_data)["sent-weat6b"]
    for key in SET_KEYS:
        assert list(getattr(back, key).examples) == published[key]["examples"]


def test_articles_and_plurals_in_published_sentences():
    assert fill("European American", "person")[0] == "This is a European American."
    assert fill("African American", "person")[6] == "An African American is a person."
    assert fill("woman of color", "person")[-1] == "Women of color are people."
    assert fill("honor", "noun")[0] == "This is an honor."
    assert fill("children", "plural-noun")[:1] + fill("children", "plural-noun")[-1:] == (
        "This is a child.", "Children are things.")


def test_editing_words_regenerates_sentences():
    pleasant = SentenceSet("Pleasant", ("caress",), "noun")
    edited = pleasant.with_words(["caress", "freedom", "sunshine"])
    sentences = edited.sentences()
    assert "This is freedom." in sentences, "freedom keeps its mass-noun kind from the lexicon"
    assert "This is a sunshine." in sentences, "a new word takes the set's kind"
    assert "This is sunshine." in edited.with_kind("sunshine", "mass").sentences()
    assert edited.sentences_by_word()["caress"] == fill("caress", "noun")


def test_context_templates_ignore_the_part_of_speech_lexicon():
    traits = SentenceSet("Competent", ("strong", "gentle"), "vice-president-trait")
    assert traits.sentences() == ("The assistant vice president is strong.",
                                  "The assistant vice president is gentle.")


def test_template_errors_name_the_word_and_the_fix():
    with pytest.raises(ValueError, match=r"unknown template kind 'nown' for 'aster': use one of"):
        fill("aster", "nown")
    with pytest.raises(ValueError, match=r"needs pronoun='he' or 'she' for 'Donna'"):
        fill("Donna", "heilman-clear-1-")
    with pytest.raises(ValueError, match=r"'aster' does not look plural"):
        fill("aster", "plural-noun")
    with pytest.raises(ValueError, match=r"unknown template kind"):
        SentenceSet("X", ("a",), "noun").with_kind("a", "thing")
    assert "noun" in TEMPLATE_KINDS and "verb" in TEMPLATE_KINDS


def test_inflect_loaded_without_typeguard_instrumentation_answers_as_inflect_does():
    """templates._inflect loads inflect with typeguard's decorator made a no-op (2 s less per process): its
    articles, plurals and singulars of every word of the bundled tests are those of an inflect loaded as usual."""
    import subprocess
    import sys

    from embias_widgets.stimuli import bundled_test_names, load_bundled_test
    from embias_widgets.stimuli.templates import _inflect

    specs = [load_bundled_test(name) for name in bundled_test_names()]
    words = sorted({w for t in specs for s in (t.targ1, t.targ2, t.attr1, t.attr2) for w in s.examples})
    assert len(words) > 300
    ours = _inflect()
    plurals = [ours.plural_noun(w) for w in words]
    mine = [[ours.a(w) for w in words], plurals, [ours.singular_noun(p) for p in plurals]]
    code = ("import json, sys, inflect; e = inflect.engine(); w = json.load(sys.stdin); "
            "p = [e.plural_noun(x) for x in w]; print(json.dumps([[e.a(x) for x in w], p, "
            "[e.singular_noun(x) for x in p]]))")
    theirs = subprocess.run([sys.executable, "-c", code], input=json.dumps(words), capture_output=True, text=True,
                            check=True).stdout
    assert json.loads(theirs) == mine
