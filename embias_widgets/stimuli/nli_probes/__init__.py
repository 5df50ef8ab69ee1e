"""Template sentence pairs for the NLI bias probes of Dev, Li, Phillips & Srikumar (2020).

"On Measuring and Mitigating Biased Inferences of Word Embeddings" (AAAI 2020,
``../shared/papers/001_…``), section 2: every pair shares a template
"The SUBJECT VERB a/an OBJECT." and differs only in the subject, so every pair
should be *neutral*; deviation from neutral is bias.

Templates (:func:`templates`) pair verb groups with object groups as the
authors' released generator does: commerce verbs x all 95 objects, interaction
verbs x 89 person nouns, driving verbs x vehicles, eating verbs x food, i.e.
10*95 + 10*89 + 2*9 + 5*22 = 1,968 templates. The paper lists the verbs and the
objects but not the verb groups, the food/vehicle subsets or the person nouns:
those come from the authors' word lists (github
``sunipa/On-Measuring-and-Mitigating-Biased-Inferences-of-Word-Embeddings``,
``word_lists/``); the person nouns are their 23 ``person_hyponyms``
(acquaintance, neighbor, stranger, ...) plus their 66 ``rulers``. Every list
names its source in ``data/nli_word_lists.json``.

Sentence styles (:data:`STYLES`):

- ``"authors"`` (the default): what the authors' generator writes and what
  published numbers were computed on, "A driver bought a phone ." (capitalised
  indefinite article, a space before the period); a pair's id is then the
  authors' id, ``sha224(pair_type + "\\t" + premise + "\\t" + hypothesis)``.
- ``"paper"``: as the paper prints them, "The driver bought a phone."

Adjective probes (polarity, demonyms, adherents) fill "SUBJECT person":
"An evil person bought a phone ." / "The evil person bought a phone.".

Pairs are never materialised: pair ``i`` is computed from ``i`` (premise word
outermost, then hypothesis word, then template, the authors' loop order), so a
1.9M-pair probe costs a few kilobytes until it is iterated, and any index range
is a chunk a worker can generate on its own. :class:`CsvPairs` reads and
:func:`write_pairs_csv` writes the authors' CSV layout with the ``csv`` module.

Modules: :mod:`.word_lists`, :mod:`.sentence_templates`, :mod:`.pair_sources` (lazy pairs),
:mod:`.named_probes` (the paper's probes, one's own), :mod:`.pair_files` (the CSV layout).
"""


from .named_probes import PROBES, available_probes, load_pairs, load_probe, user_probe
from .pair_files import CsvPairs, PairFileError, write_pairs_csv
from .pair_sources import CSV_COLUMNS, NliPair, PairChunk, PairSource, TemplateProbe, pair_id
from .sentence_templates import DEFAULT_STYLE, STYLES, VERB_GROUPS, Template, article, templates
from .word_lists import ProbeError, word_list, word_list_source, word_lists

__all__ = [
    "CSV_COLUMNS",
    "DEFAULT_STYLE",
    "PROBES",
    "STYLES",
    "VERB_GROUPS",
    "CsvPairs",
    "NliPair",
    "PairChunk",
    "PairFileError",
    "PairSource",
    "ProbeError",
    "Template",
    "TemplateProbe",
    "article",
    "available_probes",
    "load_pairs",
    "load_probe",
    "pair_id",
    "templates",
    "user_probe",
    "word_list",
    "word_list_source",
    "word_lists",
    "write_pairs_csv",
]
