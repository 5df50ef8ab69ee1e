"""The NLI bias probes of Dev et al. (2020): study, result, and the engine that scores chunks.

- :mod:`.study`: :class:`NliProbe` (a probe and a model; ``run()``);
- :mod:`.result`: :class:`NliProbeResult` (summary, to_dict, frame, chart; tables and heatmaps) and its
  numbers in :mod:`.scores` (:class:`NliScores` per level, :class:`NliProbeScores` for both);
- the engine: :mod:`.chunks` (one chunk scored and reduced, its file), :mod:`.resume` (the fingerprinted
  ``run.json`` manifest), :mod:`.engine` (local runs, per-process model cache), :mod:`.dask_runner`;
- :mod:`.debias` (before / after debiasing), :mod:`.subset` (the explorer's subset of a probe).
"""

from ...metrics.neutrality import DEFAULT_TAUS, LABELS, threshold_key
from ...models.nli_classifiers import load_nli_model
from ...stimuli.nli_probes import available_probes
from .chunks import ChunkResult, score_chunk
from .debias import debias_comparison
from .engine import ENGINES
from .result import DEMO_NOTE, NliProbeResult, heatmap_grid
from .resume import NliRunError
from .scores import LEVEL_NOTES, NliProbeScores, NliScores
from .study import NliProbe, model_description, score_pair
from .subset import ProbeSubset


def available_nli_models() -> dict[str, str]:
    """Registered NLI models by name, with their descriptions."""
    from ...models.registry import available_models

    return available_models(kind="nli")


__all__ = [
    "DEFAULT_TAUS",
    "DEMO_NOTE",
    "ENGINES",
    "LABELS",
    "LEVEL_NOTES",
    "ChunkResult",
    "NliProbe",
    "NliProbeResult",
    "NliProbeScores",
    "NliRunError",
    "NliScores",
    "ProbeSubset",
    "available_nli_models",
    "available_probes",
    "debias_comparison",
    "heatmap_grid",
    "load_nli_model",
    "model_description",
    "score_chunk",
    "score_pair",
    "threshold_key",
]
