"""A Python reference written on a documentation page (``{py:func}`embias_widgets.metrics.weat```) that
resolves to nothing is a warning, so the ``-W`` build fails on it.

Sphinx is not run nitpicky: the docstrings' type annotations name numpy, pandas and the standard library,
which no offline build can link (no intersphinx), so only the pages' own references are held to this.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

logger = logging.getLogger(__name__)
API_PAGES = {"api"}  # references inside autodoc'ed docstrings: not checked here


def _missing(app: Sphinx, env: BuildEnvironment, node: nodes.Element, contnode: nodes.Node) -> None:
    if node.get("refdomain") == "py" and node.get("refdoc") not in API_PAGES:
        logger.warning("%s reference %r on a page resolves to nothing: fix the name or document it in api.md",
                       node.get("reftype"), node.get("reftarget"), location=node, type="ref", subtype="page")


def setup(app: Sphinx) -> dict[str, object]:
    """Connect the check to Sphinx's missing-reference event."""
    app.connect("missing-reference", _missing)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
