"""What masked- and causal-LM scorers share: the model on its device, the tokenizer, a validated
token budget, the per-text token cache and loading by hub name or path."""

from __future__ import annotations

from typing import Any

from ..runtime import check_device, check_dtype, default_device, place_model, precision_note
from ..runtime import token_budget as token_budget_for
from ..sentence_encoders.hub import check_model_dir, from_pretrained
from .batching import pack_by_length
from .head_split import HeadSplit
from .scoring import Tokenized


class ScorerBase:
    """What masked- and causal-LM scorers share: the model on its device, the
    tokenizer, a validated token budget, the per-text token cache, loading by
    hub name or path (``_auto_model`` names the ``transformers`` Auto class)."""

    _auto_model = ""

    def _setup(self, model: Any, tokenizer: Any, *, name: str | None, description: str,
               device: str | None, token_budget: int | None, progress: bool, dtype: str | None = None) -> None:
        # device and dtype checked, the model moved (runtime.place_model); budget: as given, else sized (runtime)
        self.model, self.device, self.dtype = place_model(model, device, dtype)
        self.tokenizer = tokenizer
        self.name = name or getattr(model.config, "name_or_path", "") or type(model).__name__
        self.description = description
        self.token_budget = token_budget_for(token_budget, self.model, self.device, self.dtype)
        pack_by_length([1], self.token_budget)  # validates the budget
        self.progress = progress
        self._split: HeadSplit | None = None
        self._tokenized: dict[str, Tokenized] = {}
        self.forward_passes = 0

    @classmethod
    def from_pretrained(cls, name_or_path: str, **options: Any) -> Any:
        """Load the model (``transformers.<_auto_model>``) and ``AutoTokenizer`` from a hub name or a local path."""
        import transformers

        check_device(options.get("device"))
        check_dtype(options.get("dtype"), default_device(options.get("device")))  # before the weights load
        path = check_model_dir(name_or_path, what="language model")
        tokenizer = transformers.AutoTokenizer.from_pretrained(name_or_path)
        model = from_pretrained(getattr(transformers, cls._auto_model), name_or_path, path)
        return cls(model, tokenizer, name=options.pop("name", str(name_or_path)), **options)

    @property
    def precision_note(self) -> str:
        """``dtype=bfloat16 (scores agree with float32 to about ...)`` for a half precision, else ``""``."""
        return precision_note(self.dtype, "scores")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, device={self.device!r}, token_budget={self.token_budget})"
