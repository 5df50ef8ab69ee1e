"""Sphinx configuration for the embias-widgets documentation site.

Built offline (no intersphinx, notebooks rendered from their stored cells, never executed here:
tests/test_notebooks.py executes every notebook) and with warnings as errors by
tests/test_docs_build.py: ``python -m sphinx -W --keep-going -b html docs <out>``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import embias_widgets

sys.path.insert(0, str(Path(__file__).parent / "_ext"))


def _copy_notebooks() -> None:
    """Sphinx reads sources only under docs/: bring ../notebooks/*.ipynb into docs/notebooks/ (git-ignored),
    rewriting a copy only when its content changed (a symlink would make hatch's sdist walk find the
    notebooks twice and keep them under docs/ only)."""
    here = Path(__file__).parent
    target = here / "notebooks"
    target.mkdir(exist_ok=True)
    for source in sorted((here.parent / "notebooks").glob("*.ipynb")):
        copy = target / source.name
        data = source.read_bytes()
        if not copy.is_file() or copy.read_bytes() != data:
            tmp = copy.with_suffix(f".tmp{id(data)}")
            tmp.write_bytes(data)
            tmp.replace(copy)  # atomic: a build running beside this one never reads half a file
    for stale in target.glob("*.ipynb"):
        if not (here.parent / "notebooks" / stale.name).is_file():
            stale.unlink()


_copy_notebooks()

project = "embias-widgets"
author = "embias-widgets contributors"
copyright = "embias-widgets contributors, MIT licence"
release = embias_widgets.__version__
version = release

extensions = [
    "myst_nb",  # Markdown pages (MyST) and notebooks
    "sphinx.ext.autodoc",  # API reference from docstrings
    "sphinx.ext.napoleon",  # numpy-style "Parameters" sections
    "mathml",  # maths as MathML written at build time: it reads offline, with no script (docs/_ext)
    "cli_help",  # the command line page, generated from embias' argparse parsers (docs/_ext)
    "strict_refs",  # a page's Python reference that resolves to nothing fails the build (docs/_ext)
]

# Notebooks: rendered as stored (the repository keeps them without outputs); executing them here
# would need the models and minutes of CPU. tests/test_notebooks.py executes all of them.
nb_execution_mode = "off"
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = [
    "_build",
]

# API reference: public names through their public import paths (embias_widgets.analysis, ...),
# never deep module paths, which may move.
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_ivar = True  # "Attributes" as fields: autodoc documents dataclass fields once

html_math_renderer = "mathml"
html_theme = "alabaster"
html_static_path = ["_static"]
html_title = f"embias-widgets {release}"
html_theme_options = {"description": "Measure and see social bias in embeddings and language models"}

# No network at build time: no intersphinx inventories, no remote images.
intersphinx_mapping: dict = {}
