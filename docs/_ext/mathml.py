"""Maths written as MathML when the site is built, so it reads with no network and no script.

Sphinx's usual renderer (``sphinx.ext.mathjax``) leaves the TeX in the page for MathJax, loaded from a CDN, to
typeset in the browser: offline, a reader saw raw ``$s(w, A, B)$``. Here each ``$...$`` and ``$$...$$`` of
the pages and notebooks is converted by latex2mathml into MathML, which browsers draw themselves (MathML
Core: Chromium, Firefox, Safari). The TeX stays in the page as the formula's annotation (screen readers and
copy-paste get it). A formula latex2mathml cannot convert fails the build (a warning under ``-W``).
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.writers.html5 import HTML5Translator

logger = logging.getLogger(__name__)
RENDERER = "mathml"


def to_mathml(tex: str, display: str) -> str:
    """``tex`` as a ``<math>`` element (``display``: ``"inline"`` or ``"block"``), its TeX as the annotation."""
    from html import escape

    from latex2mathml.converter import convert

    math = convert(tex, display=display)
    annotation = f'<annotation encoding="application/x-tex">{escape(tex)}</annotation>'
    head, _, rest = math.partition(">")  # <math ...> then the formula: wrapped in <semantics> with its TeX
    body = rest.rsplit("</math>", 1)[0]
    return f"{head}><semantics>{body}{annotation}</semantics></math>"


def _convert(translator: HTML5Translator, node: nodes.Element, tex: str, display: str) -> str:
    try:
        return to_mathml(tex, display)
    except Exception as err:  # latex2mathml raises its own exception types for TeX it does not know
        logger.warning("cannot write this formula as MathML (%s): %s", err, tex, location=node)
        return translator.encode(tex)


def visit_math(translator: HTML5Translator, node: nodes.math) -> None:
    """An inline formula (``$...$``)."""
    translator.body.append(translator.starttag(node, "span", "", CLASS="math notranslate"))
    translator.body.append(_convert(translator, node, node.astext(), "inline") + "</span>")
    raise nodes.SkipNode


def visit_displaymath(translator: HTML5Translator, node: nodes.math_block) -> None:
    """A displayed formula (``$$...$$``): each of its equations (separated by a blank line) a block of its own."""
    translator.body.append(translator.starttag(node, "div", CLASS="math notranslate"))
    for part in (p for p in node.astext().split("\n\n") if p.strip()):
        translator.body.append(_convert(translator, node, part.strip(), "block"))
    translator.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the renderer; conf.py picks it with ``html_math_renderer = "mathml"``."""
    app.add_html_math_renderer(RENDERER, inline_renderers=(visit_math, None),
                               block_renderers=(visit_displaymath, None))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
