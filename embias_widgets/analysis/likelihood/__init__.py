"""The paired-likelihood study: more/less stereotypical sentence pairs scored by a language model.

- :mod:`.study`: :class:`PairedLikelihood`, the runner (pairs, scorer, options);
- :mod:`.result`: :class:`PairedLikelihoodResult` (``summary``, ``to_dict``, ``frame``, ``chart``, and
  the table view the widget shows);
- :mod:`.rows`: one scored pair (:class:`PairRow`) and its records; :mod:`.groups`: scores per group;
  :mod:`.senses`: sense keys (SSSB); :mod:`.notes`: what a run warns about; :mod:`.view`: filter, sort and
  group the table; :mod:`.pair_checks`: is a pair a minimal edit; :mod:`.pair_input`: pairs as given.
"""

from ...metrics.likelihood import CONVENTION_LABELS, CONVENTIONS
from .groups import GROUPINGS, group_of, group_scores
from .notes import BATCH_TOLERANCE
from .pair_checks import differing_spans, minimal_edit_warning
from .pair_input import as_pair, as_pairs, pair_from_record, pair_record
from .result import DEMO_NOTE, DIRECTIONS, PairedLikelihoodResult
from .rows import NAMINGS, PairRow
from .senses import SENSE_PAIRING_RULE, sense_key_problems, sense_means, sense_note
from .study import AUTO_DECIMALS, PairedLikelihood
from .view import SORTS, TableView, table_view

__all__ = [
    "AUTO_DECIMALS",
    "BATCH_TOLERANCE",
    "CONVENTIONS",
    "CONVENTION_LABELS",
    "DEMO_NOTE",
    "DIRECTIONS",
    "GROUPINGS",
    "NAMINGS",
    "SENSE_PAIRING_RULE",
    "SORTS",
    "PairRow",
    "PairedLikelihood",
    "PairedLikelihoodResult",
    "TableView",
    "as_pair",
    "as_pairs",
    "differing_spans",
    "group_of",
    "group_scores",
    "minimal_edit_warning",
    "pair_from_record",
    "pair_record",
    "sense_key_problems",
    "sense_means",
    "sense_note",
    "table_view",
]
