"""``embias report``: one audit of a model, or several side by side, across every method that applies.

:class:`Report` plans the sections per model kind (:mod:`.plan`), runs them as independent tasks that are saved
as they finish (:mod:`.store`), corrects every p-value with Holm-Bonferroni and returns a :class:`ReportResult`
that writes ``report.json``, ``report.html`` and the figures.
"""

from .checks import ReportFileError
from .plan import FULL_SIZES, QUICK_SIZES, SECTIONS_BY_KIND, ReportInputError, model_kind
from .result import SCHEMA, SECTION_KEYS, ReportResult
from .runner import Report
from .store import ReportRunError

__all__ = ["FULL_SIZES", "QUICK_SIZES", "SCHEMA", "SECTIONS_BY_KIND", "SECTION_KEYS", "Report", "ReportFileError",
           "ReportInputError", "ReportResult", "ReportRunError", "model_kind"]
