"""Nothing we run registers hooks on a user's model (issue 29, section 3).

The ``[CLS]``-row shortcut of the NLI cross-encoder and the LM's last-layer / decoder-input paths used to stop
the forward pass with a pre-hook that raised; a model pickled (as Dask pickles it) or used by another thread
while that hook was registered carried it, and its full pass then raised ``_LastLayerReachedError``. Now the
layers are called explicitly: these tests pickle a classifier while another thread is inside the shortcut's
pass, and run eight Dask workers on one classifier object after a run in this process.
"""

from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest
from _tiny_nli import build_tiny_nli, tiny_tokenizer

from embias_widgets.models.language_models import head_split
from embias_widgets.models.nli_classifiers import CrossEncoderNli

PREMISES = ["A nurse bought a phone .", "A doctor bought an apple .", "A pilot drove a car ."]
HYPOTHESES = ["A woman bought a phone .", "A man bought an apple .", "A man drove a car ."]


def _hooks(model) -> int:
    return sum(len(m._forward_pre_hooks) + len(m._forward_hooks) for m in model.modules())


def _full_pass(clf: CrossEncoderNli) -> np.ndarray:
    """The model's own forward pass (no shortcut)."""
    clf = pickle.loads(pickle.dumps(clf))
    clf.cls_row = False
    return clf.predict(PREMISES, HYPOTHESES)


def test_a_classifier_pickled_while_another_thread_is_inside_the_shortcut_runs_its_full_pass(monkeypatch) -> None:
    import cloudpickle

    clf = CrossEncoderNli(build_tiny_nli(tiny_tokenizer()), tiny_tokenizer(), device="cpu")
    want = clf.predict(PREMISES, HYPOTHESES)
    assert clf._fast, "the [CLS]-row shortcut applies to a BERT classifier"
    inside, resume = threading.Event(), threading.Event()
    original = head_split._layer_states

    def paused(out):  # the shortcut's pass, between two of the model's layers
        inside.set()
        assert resume.wait(10)
        return original(out)

    monkeypatch.setattr(head_split, "_layer_states", paused)
    got: list[np.ndarray] = []
    worker = threading.Thread(target=lambda: got.append(clf.predict(PREMISES, HYPOTHESES)))
    worker.start()
    try:
        assert inside.wait(10)
        hooks_meanwhile = _hooks(clf.model)
        copies = [pickle.loads(pickle.dumps(clf)), cloudpickle.loads(cloudpickle.dumps(clf))]
    finally:
        resume.set()
        worker.join(10)
    monkeypatch.setattr(head_split, "_layer_states", original)
    assert hooks_meanwhile == 0
    np.testing.assert_array_equal(got[0], want)
    for copy in copies:
        assert _hooks(copy.model) == 0
        full = copy.model(**clf.tokenizer(PREMISES[:1], HYPOTHESES[:1], return_tensors="pt")).logits  # no raise
        assert full.shape == (1, 3)
        np.testing.assert_allclose(copy.predict(PREMISES, HYPOTHESES), want, rtol=0, atol=1e-6)
    np.testing.assert_allclose(_full_pass(clf), want, rtol=0, atol=1e-6)  # the shortcut vs the full pass


@pytest.mark.slow
def test_eight_dask_workers_share_one_classifier_object_after_a_local_run() -> None:
    """The failing scenario on the 16-core machine, small: one classifier object run in process, then on eight
    single-thread workers of this 2-core machine (each checks the shortcut against its full pass once)."""
    from embias_widgets.analysis.nli import NliProbe
    from embias_widgets.stimuli.nli_probes import user_probe

    clf = CrossEncoderNli(build_tiny_nli(tiny_tokenizer()), tiny_tokenizer(), device="cpu")
    probe = user_probe(["nurse", "doctor"], ["man", "woman"])
    local = NliProbe(probe, clf, chunk_size=16, limit=128).run()
    dask = NliProbe(probe, clf, chunk_size=16, limit=128).run(workers=8)
    assert _hooks(clf.model) == 0
    assert dask.engine == "dask" and dask.scores() == local.scores()
