"""Did fine-tuning or debiasing change the bias? Two models paired item by item (``embias compare``).

- :mod:`.study`: :class:`Compare` (both models through the report's sections, then the comparison) and its
  :class:`CompareResult`;
- :mod:`.pairing`: each method's two sections paired by item content, the changes from the paired metric core
  (:mod:`embias_widgets.metrics.paired`, ``paired_association``, ``paired_resampling``);
- :mod:`.comparison`: every method, Holm-Bonferroni over the paired tests, the verdicts (the
  ``embias-comparison/1`` dict);
- :mod:`.gate`: the CI gate's rules (``--fail-if worse``);
- :mod:`.baseline`: ``Report(..., baseline=...)``;
- :mod:`.saved_models`: models given as objects, saved where a report can load them.
"""

from .comparison import COMPARISON_SCHEMA, compare_models, summary_lines
from .gate import RULE_NAMES, GateRule, breaches, parse_rule
from .saved_models import save_model
from .study import Compare, CompareResult

__all__ = ["COMPARISON_SCHEMA", "RULE_NAMES", "Compare", "CompareResult", "GateRule", "breaches", "compare_models",
           "parse_rule", "save_model", "summary_lines"]
