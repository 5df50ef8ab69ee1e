"""The training data of the DEMO NLI model ``"embias-demo-nli"``: synthetic sentence pairs from WordNet nouns.

One template "The SUBJECT VERB a/an OBJECT." per pair, the two sentences differ only in the subject:
subject replaced by a **hypernym** (poodle -> dog): entailment; by a **hyponym** (dog -> poodle): neutral;
by a **co-hyponym** (poodle -> beagle) or a noun antonym: contradiction (:func:`synthetic_pairs`).
No person noun is a subject (every synset under ``person.n.01`` and in ``noun.person``), nor any word of
the probes' lists (:data:`PROBE_WORDS`, read from the bundled word lists of Dev et al. 2020,
:mod:`embias_widgets.stimuli.nli_probes`), and the training templates use none of the probes' verbs or
objects. Synsets are held out by a hash of their offset (:func:`is_held_out_synset`). See
:mod:`.demo_nli` for the model and ``scripts/fit_demo_nli.py`` for the fit.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ...stimuli.nli_probes import word_lists

WORDNET_DIR = Path("/usr/share/wordnet")
HELD_OUT_FRACTION = 0.2
PERSON_OFFSET = "00007846"  # person.n.01 (person, individual, someone, somebody, mortal, soul)
PERSON_LEXFILE = 18  # noun.person
SUBJECT_LEXFILES = {5: "noun.animal", 6: "noun.artifact", 13: "noun.food", 17: "noun.object", 20: "noun.plant"}

#: The bundled lists (Dev et al. 2020, appendix "Word Lists") whose words are never a training subject.
PROBE_NOUN_LISTS = (
    "adherents", "adherents_subspace", "countries_subspace", "demonyms", "demonyms_subspace", "gendered_words",
    "gendered_words_subspace", "occupations", "objects", "polarity", "religions_subspace",
)
#: The bundled verb lists of the probes' templates.
PROBE_VERB_LISTS = ("commerce_verbs", "eating_verbs", "driving_verbs", "interaction_verbs")
#: Plural and generic person words the demo also keeps out of its training sentences (not a list of the paper).
EXTRA_PERSON_WORDS = ("men", "women", "guys", "girls", "gentlemen", "ladies", "person", "people")


def _words_of(names: Iterable[str]) -> frozenset[str]:
    lists = word_lists()
    return frozenset(w for name in names for entry in lists[name] for w in entry.lower().split())


PROBE_WORDS = _words_of(PROBE_NOUN_LISTS) | frozenset(EXTRA_PERSON_WORDS)
"""Every word of Dev et al.'s lists (lowercased): never a word of the demo's training sentences."""
PROBE_VERB_WORDS = _words_of(PROBE_VERB_LISTS)
"""Words of the probes' verbs ("spoke to", "can afford"): never a subject, and not in the training templates."""

# Training templates: "The SUBJECT VERB a/an OBJECT." with verbs and objects the probes do not use.
TEMPLATE_VERBS = (
    "is near", "was found near", "fell onto", "appeared beside", "rested against", "was left behind",
    "was seen under", "lay beside", "stood near", "was hidden behind", "touched", "was placed on",
)
TEMPLATE_OBJECTS = (
    "crate", "boulder", "wall", "tree", "river", "bridge", "window", "door", "box", "bottle", "stone", "ladder",
    "barrel", "basket", "railing", "hill", "shelf", "gate", "bucket", "old map",
)


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha1(text.encode("utf-8")).digest()[:8], "big")


def is_held_out_synset(offset: str, fraction: float = HELD_OUT_FRACTION) -> bool:
    """Whether WordNet noun synset ``offset`` (8 digits) is held out: by hash, no random seed."""
    return _digest(f"noun:{offset}") % 10_000 < fraction * 10_000


def article(word: str, *, capital: bool = False) -> str:
    """"a" or "an" by the first letter (a vowel letter: "an"); ``capital`` for sentence starts."""
    a = "an" if word[:1].lower() in "aeiou" else "a"
    return a.capitalize() if capital else a


def template_sentence(subject: str, template: int) -> str:
    """Sentence ``template`` (an index into the verb x object x article-style grid) for ``subject``.

    Styles alternate as in the probes: "The poodle is near a crate." and the
    authors' generator's "A poodle is near a crate ." (indefinite article,
    space before the period).
    """
    n_verbs, n_objects = len(TEMPLATE_VERBS), len(TEMPLATE_OBJECTS)
    verb = TEMPLATE_VERBS[template % n_verbs]
    obj = TEMPLATE_OBJECTS[(template // n_verbs) % n_objects]
    if (template // (n_verbs * n_objects)) % 2 == 0:
        return f"The {subject} {verb} {article(obj)} {obj}."
    return f"{article(subject, capital=True)} {subject} {verb} {article(obj)} {obj} ."


N_TEMPLATES = len(TEMPLATE_VERBS) * len(TEMPLATE_OBJECTS) * 2


# --- WordNet nouns ------------------------------------------------------------------------------


@dataclass(frozen=True)
class NounSynset:
    """One line of WordNet's ``data.noun``: offset, lexicographer file, lemmas and pointers."""

    offset: str
    lexfile: int
    lemmas: tuple[str, ...]
    hypernyms: tuple[str, ...]  # "@" and "@i"
    hyponyms: tuple[str, ...]  # "~" and "~i"
    antonyms: tuple[str, ...]  # "!"


def parse_noun_line(line: str) -> NounSynset | None:
    """Parse one ``data.noun`` line (format: wndb(5WN)); None for the licence header."""
    if line.startswith("  ") or "|" not in line:
        return None
    fields = line.split("|", 1)[0].split()
    offset, lexfile, n_words = fields[0], int(fields[1]), int(fields[3], 16)
    words = fields[4 : 4 + 2 * n_words : 2]
    i = 4 + 2 * n_words
    n_pointers = int(fields[i])
    hyper, hypo, anto = [], [], []
    for k in range(n_pointers):
        symbol, target, pos = fields[i + 1 + 4 * k : i + 4 + 4 * k]
        if pos != "n":
            continue
        if symbol in ("@", "@i"):
            hyper.append(target)
        elif symbol in ("~", "~i"):
            hypo.append(target)
        elif symbol == "!":
            anto.append(target)
    lemmas = tuple(w.split("(")[0].replace("_", " ") for w in words)  # drop adjective markers like (a)
    return NounSynset(offset, lexfile, lemmas, tuple(hyper), tuple(hypo), tuple(anto))


def read_noun_synsets(root: str | Path = WORDNET_DIR) -> dict[str, NounSynset]:
    """Every noun synset of WordNet 3.0 at ``root``, by offset."""
    path = Path(root) / "data.noun"
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: install Debian's wordnet-base (apt-get install wordnet-base)")
    synsets = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parsed = parse_noun_line(line)
            if parsed is not None:
                synsets[parsed.offset] = parsed
    return synsets


def person_offsets(synsets: dict[str, NounSynset]) -> set[str]:
    """``person.n.01`` and every synset under it (hyponyms and instances, transitively)."""
    seen, todo = set(), [PERSON_OFFSET]
    while todo:
        offset = todo.pop()
        if offset in seen or offset not in synsets:
            continue
        seen.add(offset)
        todo.extend(synsets[offset].hyponyms)
    return seen


def excluded_words(synsets: dict[str, NounSynset]) -> frozenset[str]:
    """Words never used as a subject: every lemma (and each of its words) of a person synset
    (under ``person.n.01`` or in ``noun.person``), :data:`PROBE_WORDS` and :data:`PROBE_VERB_WORDS`."""
    people = person_offsets(synsets)
    words = set(PROBE_WORDS | PROBE_VERB_WORDS)
    for s in synsets.values():
        if s.offset in people or s.lexfile == PERSON_LEXFILE:
            for lemma in s.lemmas:
                words.add(lemma.lower())
                words.update(lemma.lower().split())
    return frozenset(words)


def _subject_word(s: NounSynset, excluded: frozenset[str]) -> str | None:
    """The synset's first lemma usable as a subject: lowercase letters, one or two words, none excluded."""
    for lemma in s.lemmas:
        words = lemma.split()
        if (
            lemma == lemma.lower()
            and 1 <= len(words) <= 2
            and all(w.isalpha() and len(w) >= 3 for w in words)
            and lemma not in excluded
            and not any(w in excluded for w in words)
        ):
            return lemma
    return None


class SyntheticPair(NamedTuple):
    premise: str
    hypothesis: str
    label: int  # index into LABELS
    synsets: tuple[str, str]  # offsets of the premise's and the hypothesis' subject
    relation: str  # "hypernym", "hyponym", "co-hyponym", "antonym"


def synthetic_pairs(
    root: str | Path = WORDNET_DIR, *, max_families: int | None = None
) -> tuple[list[SyntheticPair], list[SyntheticPair]]:
    """``(train, held_out)`` sentence pairs from WordNet nouns (deterministic, no seed).

    For each parent synset P (a "family", in hash order) with usable children
    C1..Ck in :data:`SUBJECT_LEXFILES` (animals, artifacts, food, natural
    objects, plants), one template t = hash(P) is used for the whole family:

    * (Ci, P): hypernym -> entailment;  (P, Ci): hyponym -> neutral;
    * (Ci, C(i+1)) and (Ci, C(i+2)), children in hash order: co-hyponyms -> contradiction;
    * (A, B) for noun antonyms A, B (template hash of the pair): contradiction.

    Each synset thus appears with few templates, so the pairs reuse sentences
    (what a bi-encoder caches). Held out by :func:`is_held_out_synset` of both
    subjects; pairs with one held-out subject are dropped. ``max_families``
    keeps the first families in hash order (a smaller, faster fit).
    """
    synsets = read_noun_synsets(root)
    excluded = excluded_words(synsets)
    people = person_offsets(synsets)
    word = {}
    for s in synsets.values():
        if s.lexfile in SUBJECT_LEXFILES and s.offset not in people:
            w = _subject_word(s, excluded)
            if w is not None:
                word[s.offset] = w
    families = sorted((o for o in word if any(c in word for c in synsets[o].hyponyms)), key=lambda o: _digest(o))
    if max_families is not None:
        families = families[:max_families]
    pairs: list[SyntheticPair] = []
    for parent in families:
        t = _digest(f"template:{parent}") % N_TEMPLATES
        kids = sorted(
            {c for c in synsets[parent].hyponyms if c in word and word[c] != word[parent]}, key=lambda o: _digest(o)
        )
        say = {o: template_sentence(word[o], t) for o in (parent, *kids)}
        for c in kids:
            pairs.append(SyntheticPair(say[c], say[parent], 0, (c, parent), "hypernym"))
            pairs.append(SyntheticPair(say[parent], say[c], 1, (parent, c), "hyponym"))
        for step in (1, 2):
            for a, b in zip(kids, kids[step:], strict=False):
                if word[a] != word[b]:
                    pairs.append(SyntheticPair(say[a], say[b], 2, (a, b), "co-hyponym"))
    for s in synsets.values():
        for other in s.antonyms:
            if s.offset in word and other in word and s.offset < other:
                t = _digest(f"template:{s.offset}:{other}") % N_TEMPLATES
                a, b = template_sentence(word[s.offset], t), template_sentence(word[other], t)
                pairs += [
                    SyntheticPair(a, b, 2, (s.offset, other), "antonym"),
                    SyntheticPair(b, a, 2, (other, s.offset), "antonym"),
                ]
    train, held_out = [], []
    for pair in pairs:
        flags = [is_held_out_synset(o) for o in pair.synsets]
        if all(flags):
            held_out.append(pair)
        elif not any(flags):
            train.append(pair)
    return train, held_out


def training_words(pairs: Iterable[SyntheticPair], root: str | Path = WORDNET_DIR) -> set[str]:
    """Every lowercased word of the given pairs' sentences (to check what the demo was fitted on)."""
    words: set[str] = set()
    for pair in pairs:
        for sentence in (pair.premise, pair.hypothesis):
            words.update(sentence.lower().replace(".", " ").split())
    return words
