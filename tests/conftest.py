"""Shared fixtures. Nothing here downloads: HF_HUB_OFFLINE is set for every test."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from _missing import skip_unless_ci

# Some machines (this one among them) set PYTHONDONTWRITEBYTECODE=1: then no process writes .pyc files,
# and every notebook kernel, JupyterLab server and fresh venv the suite starts compiles each module it imports from
# source again (the Binder replay: 13 s more). The suite writes them, as a user's Python does; they stay out of git
# (.gitignore) and out of the sdist and wheel (tests/test_packaging.py).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
if os.environ.get("PYTEST_XDIST_WORKER"):
    # Two test processes share the cores (pyproject's ``-n``): one BLAS/OpenMP thread each (and in the notebook
    # kernels and subprocesses they start), or torch's per-process threads oversubscribe the machine.
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


def data_candidates() -> list[Path]:
    """Where the published data sets may be, in order: ``$EMBIAS_DATA``; ``../shared/data`` beside the
    project root; the folder ``embias data fetch`` writes to (``$EMBIAS_CACHE/data`` or
    ``~/.cache/embias-widgets/data``)."""
    from embias_widgets.data import default_dest

    if os.environ.get("EMBIAS_DATA"):
        return [Path(os.environ["EMBIAS_DATA"]).expanduser()]
    return [SHARED / "data", default_dest()]


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The first complete folder of :func:`data_candidates` (CI always has one; a fresh clone gets one
    with ``embias data fetch``)."""
    from embias_widgets.data import missing

    tried = []
    for folder in data_candidates():
        lacking = missing(folder)
        if not lacking:
            return folder
        state = "absent" if not folder.is_dir() else f"lacks {lacking[0]} and {len(lacking) - 1} more"
        tried.append(f"{folder} ({state})")
    why = f"published data sets not found: {'; '.join(tried)}. Run `embias data fetch` (pip install -e '.[data]')"
    skip_unless_ci(why)


@pytest.fixture(scope="session")
def glove():
    """The embedded GloVe 6B 50d vectors (loaded once per session)."""
    from embias_widgets.models import load_model

    return load_model("glove-6b-50d")


@pytest.fixture(scope="session")
def minilm():
    """The embedded all-MiniLM-L6-v2 sentence encoder on the CPU, loaded once per session (per xdist worker).
    Tests wrap it (never change it in place), so one load serves every module."""
    from embias_widgets.models import load_model

    return load_model("all-MiniLM-L6-v2", device="cpu")


@pytest.fixture(scope="session")
def wn():
    """WordNet 3.0 (CI installs Debian's wordnet-base; a user's clone may lack it: then skip, saying why; CI fails)."""
    from embias_widgets.stimuli.wordnet import WordNetNotFoundError, load_wordnet

    try:
        return load_wordnet()
    except WordNetNotFoundError as err:
        skip_unless_ci(str(err))


#: Tests measured at 8 s or more each (``--durations``, issue 20: a loaded 2-core machine, about 2 s or more idle),
#: mostly for a subprocess (the ``embias`` console script, Sphinx, a fresh venv) or a whole report run. Marked
#: ``slow`` here in one place, beside those marked in their modules: ``-m "not slow"`` leaves them out while
#: working; ``python -m pytest`` (what CI runs) still runs them all.
SLOW = {
    "test_docs_build.py": {"*"},  # one Sphinx build (module fixture) and a second one with two broken references
    "test_report.py": {"*"},  # the module fixture runs a whole quick report
    "test_report_cli.py": {"*"},
    "test_cache_fingerprints.py": {"test_gloss_vectors_of_two_encoders_with_one_name_are_not_shared",
                                   "test_directory_fingerprint_sees_weights_not_readmes"},
    "test_input_validation.py": {"test_cbow_sentence_with_an_oov_slot_word_is_noted"},
    "test_demo_mlm.py": {"test_predicts_held_out_wordnet_glosses"},
    "test_readme.py": {"test_the_entry_point_answers_help"},
    "test_error_wording.py": {"test_paired_likelihood_rejects_what_is_not_a_list_of_pairs",
                              "test_an_unscored_pair_is_named_with_its_length_and_the_model_limit"},
    "test_association_suite.py": {"test_cli_outputs_the_batch_as_tsv_json_and_table",
                                  "test_holm_bonferroni_is_over_all_rows"},
    "test_lint.py": {"test_front_end_unit_tests"},
    "test_nli_probes.py": {"test_iterating_200k_pairs_keeps_memory_flat"},
    "test_cli.py": {"test_console_script_entry_point"},
}


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups (after it, they ran in both workers)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of :data:`SLOW` ``slow``; put every real-browser test in one xdist group, so that
    ``--dist loadgroup`` runs them in one worker with one JupyterLab server and one Chromium."""
    for item in items:
        if item.path.parent.name == "browser":
            item.add_marker(pytest.mark.xdist_group("browser"))
        names = SLOW.get(item.path.name, ())
        if "*" in names or getattr(item, "originalname", item.name) in names:
            item.add_marker(pytest.mark.slow)
