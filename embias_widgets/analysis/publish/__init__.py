"""What a report shows and exports, read from its ``report.json`` dict: the findings a reader can
quote (:mod:`.findings`), agreement between methods and validity notes (:mod:`.agreement`), the page's blocks
that ``report.html`` and the JupyterLab viewer both draw (:mod:`.page`) and the Hugging Face model-card export
(:mod:`.model_card`).

Kept beside :mod:`embias_widgets.analysis.report` rather than in it: the report viewer widget builds its page
from here, and a report result shows itself as that widget, so the widget must not import the report package
back (``tests/test_package_layout.py``'s display-hook rule). Nothing here computes a statistic but Kendall's tau
between methods' model orders.
"""

from .model_card import model_card, write_model_cards
from .page import page

__all__ = ["model_card", "page", "write_model_cards"]
