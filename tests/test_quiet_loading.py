"""transformers' "Loading weights" progress bar stays out of a notebook cell (issue 31, item 21: it showed above
the SEAT widget): silenced where we load (models/sentence_encoders/hub.py, shared by encoders and LM scorers),
and restored afterwards so a user's own transformers calls keep their bars."""

from __future__ import annotations

from transformers import AutoModel
from transformers.utils import logging as hf_logging

from embias_widgets.models.sentence_encoders.encoders import embedded_minilm_dir
from embias_widgets.models.sentence_encoders.hub import from_pretrained


def test_our_loading_prints_no_progress_bar_and_restores_it(capfd):
    path = embedded_minilm_dir()
    assert hf_logging.is_progress_bar_enabled()
    AutoModel.from_pretrained(str(path))  # transformers' own call: the bar (the check can fail)
    assert "Loading weights" in capfd.readouterr().err
    from_pretrained(AutoModel, path, path)
    assert "Loading weights" not in capfd.readouterr().err
    assert hf_logging.is_progress_bar_enabled()  # the user's setting is back
    hf_logging.disable_progress_bar()
    try:
        from_pretrained(AutoModel, path, path)
        assert not hf_logging.is_progress_bar_enabled()  # and a user's "off" stays off
    finally:
        hf_logging.enable_progress_bar()


def test_embias_nli_in_process_leaves_the_users_setting(capfd):
    """`embias nli` run through main() inside another program: no weight bar, and the bar setting is as it was
    afterwards (it used to switch transformers' bars off for the rest of the process)."""
    import io

    from embias_widgets.cli import main

    hf_logging.enable_progress_bar()
    argv = ["nli", "--probe", "religion-polarity", "--limit", "12", "--no-progress", "--format", "json"]
    assert main(argv, out=io.StringIO()) == 0
    assert "Loading weights" not in capfd.readouterr().err
    assert hf_logging.is_progress_bar_enabled()
