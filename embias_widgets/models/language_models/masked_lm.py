"""Sentence likelihoods from any masked language model (``AutoModelForMaskedLM``).

For a sentence of tokens w_1..w_n (special tokens excluded):

- PLL (Salazar et al. 2020): ``sum_i log P(w_i | S with w_i masked)``, one
  masked copy of S per token;
- PLL-word-l2r (Kauf & Ivanova 2023): the same sum, each copy also masking the
  later tokens of w_i's word (:mod:`.word_l2r`);
- CPS (Nangia et al. 2020, CrowS-Pairs ``metric.py``): the same sum over the
  tokens a pair shares (token ids aligned with ``difflib``, ``equal`` blocks),
  skipping the first and last aligned positions ([CLS]/[SEP]); modified
  tokens are never masked; uncased models see lowercased text;
- AUL (Kaneko & Bollegala 2022): ``(1/n) sum_i log P(w_i | S)`` from one pass
  over the unmasked sentence; AULA weights each term by the attention w_i
  receives (mean over layers, heads and query positions).

Masked copies of all sentences are packed into batches of equal length under
a token budget (:class:`~embias_widgets.models.language_models.copy_plan.CopyPlan`), so
memory is bounded for long sentences, short sentences share batches, and no
padding enters any row: results do not depend on the batch size. Only the
masked position of each copy goes through the prediction head. Every
(token ids, position) result is cached, so edits re-score only new text.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from ..runtime import gc_paused, inference, input_length
from .base import ScorerBase
from .batching import check_pad_to, pack_by_length
from .copy_plan import CopyPlan, copy_key
from .head_split import HeadSplit, eager_attention
from .scoring import MASKED_METRICS, PLL_WORD_L2R, PairScores, Tokenized, TokenScores, sentence_scores, with_modified
from .tokens import encode_texts, modified_flags, shared_positions, tokenize_many
from .vocab_blocks import HeadQueue
from .word_l2r import l2r_masks

CPS_SKIP = ("ends", "special")
DEFAULT_TOKEN_BUDGET = 8192


class MaskedLMScorer(ScorerBase):
    """Per-token and per-sentence likelihoods from a masked LM.

    Parameters
    ----------
    model, tokenizer
        A ``transformers`` masked-LM model and its tokenizer (see
        :meth:`from_pretrained` to load them by hub name or path).
    name
        How results name the model.
    device
        ``"cpu"``, ``"cuda"``, ...; default CUDA when present, else CPU.
    dtype
        ``"float32"`` (default), ``"bfloat16"`` or ``"float16"``; a half precision's tolerance is
        :attr:`precision_note` (see :mod:`embias_widgets.models.runtime`).
    token_budget
        Most tokens in one forward batch (rows x length); bounds memory. Default
        :data:`DEFAULT_TOKEN_BUDGET` on the CPU, sized from free GPU memory on CUDA.
    lowercase
        Lowercase text before tokenising (CrowS-Pairs does for uncased
        models); default: what the tokenizer's ``do_lower_case`` says.
    cps_skip
        Which shared positions CPS leaves out: ``"ends"`` (CrowS-Pairs: the
        first and last aligned positions) or ``"special"`` (special tokens
        wherever they are). They coincide for BERT and RoBERTa.
    progress
        Show a tqdm progress bar over masked copies.
    last_layer_rows
        Run the encoder's last layer at the masked row of each copy only
        (keys and values still from every row): about 1/layers less work, for
        BERT-, RoBERTa-, XLM-R- and ALBERT-shaped encoders (others run the
        whole model). On by default: it differs from the full pass by float
        rounding only (the order of operations changes), at most a few 1e-6
        per token (tests/test_pll_fast_path.py checks each family against
        the one-copy-at-a-time reference within 1e-5).
    pad_to
        Batch the masked copies in length buckets of this many tokens, padded on the right (with an
        attention mask) to the bucket's top, instead of exact-length batches without padding (the
        default): a few large batches instead of one per sentence length, which pays on a GPU, where each
        batch's kernel launches cost more than its arithmetic (``bench/bench_gpu_scale.py`` measures both).
        A token's log-probability then depends on its padding by float rounding (float32: within 1e-5,
        tested). With ``last_layer_rows`` on a supported encoder only; other models keep exact lengths.
    """

    kind = "masked"
    metrics = MASKED_METRICS
    _auto_model = "AutoModelForMaskedLM"

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        name: str | None = None,
        description: str = "",
        device: str | None = None,
        dtype: str | None = None,
        token_budget: int | None = None,
        lowercase: bool | None = None,
        cps_skip: str = "ends",
        progress: bool = True,
        last_layer_rows: bool = True,
        pad_to: int | None = None,
    ) -> None:
        if cps_skip not in CPS_SKIP:
            raise ValueError(f"`cps_skip` must be one of {CPS_SKIP}, got {cps_skip!r}")
        if tokenizer.mask_token_id is None:
            raise ValueError(f"the tokenizer of {name or 'this model'} has no mask token: use a masked LM")
        self._setup(model, tokenizer, name=name, description=description, device=device,
                    token_budget=token_budget, progress=progress, dtype=dtype)
        self.lowercase = bool(getattr(tokenizer, "do_lower_case", False)) if lowercase is None else lowercase
        self.cps_skip = cps_skip
        self.last_layer_rows = bool(last_layer_rows)
        self.pad_to = check_pad_to(pad_to, tokenizer)
        self.pad_id = int(tokenizer.pad_token_id or 0) if self.pad_to else 0
        self.mask_id = int(tokenizer.mask_token_id)
        self.max_length = input_length(model, tokenizer)
        self._overlap = not str(self.device).startswith("cpu")  # PLL: tokenise while the device computes
        self._masked: dict[tuple[int, ...], dict[tuple, float]] = {}  # ids -> (position[, also]) -> log P
        self._unmasked: dict[tuple[tuple[int, ...], bool], tuple[np.ndarray, np.ndarray | None]] = {}

    @property
    def options(self) -> str:
        last = ",last_layer_rows=True" if self.last_layer_rows else ""
        padded = f",pad_to={self.pad_to}" if self.pad_to else ""
        return f"lowercase={self.lowercase},cps_skip={self.cps_skip}{last}{padded}"

    # -- tokens --------------------------------------------------------------------------------
    def tokenize(self, text: str) -> Tokenized:
        """The sentence's tokens (cached)."""
        return self.tokenize_all([text])[0]

    def tokenize_all(self, texts: Sequence[str]) -> list[Tokenized]:
        """:meth:`tokenize` of each text (cached), the ones not cached yet in one call of the tokenizer."""
        texts = list(texts)
        new = [t for t in texts if not isinstance(t, str) or t not in self._tokenized]
        if all(isinstance(t, str) for t in new):
            new = list(dict.fromkeys(new))  # else tokenize_many names the first text that is not one, in order
        self._tokenized.update(zip(new, tokenize_many(self.tokenizer, new, lowercase=self.lowercase,
                                                      max_length=self.max_length), strict=True))
        return [self._tokenized[t] for t in texts]

    def _head(self) -> HeadSplit:
        if self._split is None:
            probe = self.tokenize("The cat sat on the mat.").ids
            self._split = HeadSplit(self.model, probe_ids=probe)
        return self._split

    # -- masked copies ---------------------------------------------------------------------------
    def masked_log_probs(
        self, requests: Iterable[tuple[Sequence[int], Iterable[int]]], *, also_masked: Iterable[Any] | None = None,
        meanwhile: Callable[[], Any] | None = None,
    ) -> list[np.ndarray]:
        """``log P(w_i | S with w_i masked)`` for each (token ids, positions) request.

        One masked copy per (sentence, position); copies not computed before
        are packed into equal-length batches under the token budget.
        ``also_masked`` gives, per request, per position, the other positions
        its copy masks too (PLL-word-l2r: :func:`~.word_l2r.l2r_masks`).
        ``meanwhile`` is called once every copy is queued, before the values come back: on a GPU, the host's
        work there runs while the device computes.
        """
        import torch

        reqs = [(tuple(map(int, ids)), list(map(int, positions))) for ids, positions in requests]
        if also_masked is None:
            rests = [list(zip(positions)) for _, positions in reqs]  # [(position,), ...]
        else:
            rests = [[copy_key(p, more) for p, more in zip(positions, masks, strict=True)]
                     for (_, positions), masks in zip(reqs, list(also_masked), strict=True)]
        pending: dict[tuple[int, ...], set[tuple]] = {}  # per sentence (its ids hashed once), copies not cached
        for (ids, _), rest in zip(reqs, rests, strict=True):
            done = self._masked.get(ids)
            pending.setdefault(ids, set()).update(rest if done is None else (r for r in rest if r not in done))
        todo = [(ids, sorted(pending[ids])) for ids in sorted(pending) if pending[ids]]  # sorted: order-free
        if todo:
            split = self._head()
            last_rows = self.last_layer_rows and split.supports_last_rows
            padded = bool(self.pad_to) and last_rows  # length buckets: the last layer's rows take a mask
            loop = split.encoder_loop(self.mask_id) if last_rows and not padded else None
            budget = self.token_budget if split.split else max(1, self.token_budget // 8)
            plan = CopyPlan(todo, budget=budget, pad_to=self.pad_to if padded else None, pad_id=self.pad_id)
            total = len(plan.position)
            queue = HeadQueue(split.log_probs, split.chunk * (4 if str(self.device).startswith("cpu") else 1))
            with inference(self.device, self.dtype), _progress(total, self.progress, "masked copies") as bar:
                for batch in plan.batches:
                    copies = plan.copies(torch, batch, self.device)  # exact lengths: no mask
                    ids, pos = copies.ids, copies.positions
                    inputs = {} if copies.mask is None else {"attention_mask": copies.mask}
                    rows = torch.arange(len(batch), device=self.device)
                    flat = rows * ids.shape[1] + pos  # each copy's target in the flat ids (flat: no advanced index)
                    targets = ids.view(-1).index_select(0, flat)
                    if copies.also is not None:
                        flat = torch.cat([flat, copies.also[0] * ids.shape[1] + copies.also[1]])
                    masked = ids.clone()
                    masked.view(-1).index_fill_(0, flat, self.mask_id)
                    if loop is not None:  # first-layer sharing needs the unmasked copies
                        states = loop.last_rows(masked, rows, pos, original=ids, masked_at=(flat, self.mask_id),
                                                distinct=(copies.sentences, copies.index))
                    else:
                        states = (split.last_rows(masked, rows, pos, **inputs) if last_rows
                                  else split.hidden(masked)[0][rows, pos])
                    queue.add(batch.tolist(), states, targets)
                    self.forward_passes += 1
                    bar.update(len(batch))
                if meanwhile is not None:
                    meanwhile()
                values = np.empty(total)  # by copy number, then into each sentence's cache
                numbers, got = zip(*queue.flush(), strict=True)
                values[list(numbers)] = got
                ends = np.cumsum([len(rest) for _, rest in todo]).tolist()
                for (ids, rest), end in zip(todo, ends, strict=True):
                    self._masked.setdefault(ids, {}).update(zip(rest, values[end - len(rest) : end].tolist(),
                                                                strict=True))
        elif meanwhile is not None:
            meanwhile()
        caches = [self._masked[ids] for ids, _ in reqs]
        return [np.fromiter(map(cache.__getitem__, rest), float, len(rest)) for cache, rest in zip(caches, rests,
                                                                                                   strict=True)]

    # -- unmasked passes -------------------------------------------------------------------------------
    def unmasked_log_probs(
        self, sequences: Iterable[Sequence[int]], *, attention: bool = False
    ) -> list[tuple[np.ndarray, np.ndarray | None]]:
        """``log P(w_i | S)`` for every position from one unmasked pass per sentence.

        With ``attention``, also each position's mean attention received
        ``a_k = mean over layers, heads, queries of A[l, h, q, k]`` (as
        :func:`embias_widgets.metrics.attention_received`, reduced in torch).
        """
        import torch

        seqs = [tuple(int(i) for i in s) for s in sequences]
        todo = sorted({s for s in seqs if (s, attention) not in self._unmasked})
        if todo:
            split = self._head()
            layers = int(getattr(self.model.config, "num_hidden_layers", 12) or 12)
            heads = int(getattr(self.model.config, "num_attention_heads", 12) or 12)
            batches = self._unmasked_batches(todo, attention, layers * heads, split.split)
            context = eager_attention(self.model) if attention else contextlib.nullcontext()
            with (
                inference(self.device, self.dtype),  # runtime: no cuDNN attention in half precision
                context,
                _progress(len(todo), self.progress, "unmasked passes", unit="sentence") as bar,
            ):
                for batch in batches:
                    ids = torch.tensor([todo[k] for k in batch], device=self.device)
                    n_rows, length = ids.shape
                    states, atts = split.hidden(ids, attentions=attention)
                    flat = states.reshape(n_rows * length, -1)
                    lp = split.log_probs(flat, ids.reshape(-1)).reshape(n_rows, length)
                    lp_np = lp.cpu().double().numpy()
                    received = None
                    if attention:
                        if not atts or atts[0] is None:
                            raise ValueError(f"{self.name} returned no attention weights; AULA needs them")
                        # (layers, rows, heads, queries, keys) -> mean over layers, heads, queries
                        stacked = torch.stack(atts, 0).float()
                        received = stacked.mean(dim=(0, 2, 3)).cpu().double().numpy()
                    self.forward_passes += 1
                    for r, k in enumerate(batch):
                        att = None if received is None else received[r]
                        self._unmasked[(todo[k], attention)] = (lp_np[r], att)
                    bar.update(len(batch))
        return [self._unmasked[(s, attention)] for s in seqs]

    def _unmasked_batches(
        self, todo: list[tuple[int, ...]], attention: bool, layer_heads: int, split: bool
    ) -> list[list[int]]:
        budget = self.token_budget if split else max(1, self.token_budget // 8)
        batches = pack_by_length([len(s) for s in todo], budget)
        if not attention:
            return batches
        # attention weights: rows x layers x heads x length^2 floats; keep them near the token budget x 64
        out = []
        for batch in batches:
            length = len(todo[batch[0]])
            rows = max(1, (budget * 64) // (layer_heads * length * length))
            out.extend(batch[i : i + rows] for i in range(0, len(batch), rows))
        return out

    # -- sentence scores ---------------------------------------------------------------------------------
    @gc_paused()
    def score_sentences(self, sentences: Sequence[str], metric: str = "pll") -> list[TokenScores]:
        """PLL, PLL-word-l2r, AUL or AULA of each sentence on its own (CPS needs pairs: :meth:`score_pairs`)."""
        if metric == "cps":
            raise ValueError("CPS compares the two sentences of a pair: use score_pairs(), or metric 'pll'")
        _check_metric(metric)
        sentences = list(sentences)  # read once: a generator is read by the early requests and the tokens alike
        early = self._early_requests(sentences) if metric == "pll" else None
        if early is not None:  # the copies queued first, the texts' checks and display pieces while they run
            values = self.masked_log_probs(early[0], meanwhile=early[1])
        toks = self.tokenize_all(sentences)
        positions = [t.content_positions for t in toks]
        for t, pos in zip(toks, positions, strict=True):
            if not pos:
                raise ValueError(f"{t.text!r} has no tokens besides special tokens: type some words")
        if metric in ("pll", PLL_WORD_L2R):
            also = None
            if metric == PLL_WORD_L2R:
                also = [self._word_l2r_masks(t, pos) for t, pos in zip(toks, positions, strict=True)]
            if early is None:
                values = self.masked_log_probs(((t.ids, pos) for t, pos in zip(toks, positions, strict=True)),
                                               also_masked=also)
            return [sentence_scores(t, metric, pos, v) for t, pos, v in zip(toks, positions, values, strict=True)]
        passes = self.unmasked_log_probs((t.ids for t in toks), attention=metric == "aula")
        return [
            sentence_scores(t, metric, pos, lp[pos], attention=att)
            for t, pos, (lp, att) in zip(toks, positions, passes, strict=True)
        ]

    def _early_requests(self, texts: list[Any]) -> tuple[list[tuple[tuple[int, ...], list[int]]], Any] | None:
        """On a GPU, PLL's (ids, positions) of ``texts`` from the tokenizer's encoding alone, and the call that
        tokenises the new ones fully (checks, display pieces; a third of a bf16 run on an H100 when it came
        first); None where they must be tokenised first: on the CPU (nothing to overlap), or for a text that is
        empty, not a string, or longer than the model takes (so it is refused before the model reads it)."""
        if not self._overlap or not all(isinstance(t, str) and t.strip() for t in texts):
            return None
        new = [t for t in dict.fromkeys(texts) if t not in self._tokenized]
        encoded = encode_texts(self.tokenizer, new, lowercase=self.lowercase) if new else None
        if encoded is not None and any(len(i) > (self.max_length or len(i)) for i in encoded.enc["input_ids"]):
            return None
        early = {t: (encoded.ids(k), encoded.content_positions(k)) for k, t in enumerate(new)}
        requests = [early.get(t) or (self._tokenized[t].ids, self._tokenized[t].content_positions) for t in texts]
        return requests, lambda: self._tokenized.update(zip(new, tokenize_many(
            self.tokenizer, new, lowercase=self.lowercase, max_length=self.max_length, encoded=encoded), strict=True))

    def _word_l2r_masks(self, tok: Tokenized, positions: list[int]) -> list[tuple[int, ...]]:
        if tok.word_ids is None:
            raise ValueError(f"{tok.text!r} was tokenised without word boundaries: PLL-word-l2r needs them")
        return l2r_masks(tok.word_ids, positions)

    def cps_positions(self, stereo: Tokenized, anti: Tokenized) -> tuple[list[int], list[int]]:
        """The positions CPS masks in each sentence: shared tokens minus ``cps_skip``."""
        left, right = shared_positions(stereo.ids, anti.ids)
        if self.cps_skip == "ends":
            return left[1:-1], right[1:-1]
        keep = [
            k for k, (a, b) in enumerate(zip(left, right, strict=True)) if not (stereo.special[a] or anti.special[b])
        ]
        return [left[k] for k in keep], [right[k] for k in keep]

    @gc_paused()
    def score_pairs(self, pairs: Sequence[tuple[str, str]], metric: str = "cps") -> list[PairScores]:
        """Score each (stereotypical, anti-stereotypical) pair with ``metric``.

        All masked copies of all pairs go through the model together.
        """
        _check_metric(metric)
        flat = self.tokenize_all([text for s, a in pairs for text in (s, a)])
        toks = list(zip(flat[0::2], flat[1::2], strict=True))
        shared = [shared_positions(s.ids, a.ids) for s, a in toks]
        if metric != "cps":
            flat = self.score_sentences([t.text for pair in toks for t in pair], metric)
            out = []
            for k, (left, right) in enumerate(shared):
                st, an = flat[2 * k], flat[2 * k + 1]
                out.append(
                    PairScores(
                        with_modified(st, modified_flags(len(st.tokenized), left)),
                        with_modified(an, modified_flags(len(an.tokenized), right)),
                    )
                )
            return out
        positions = [self.cps_positions(s, a) for s, a in toks]
        for (s, a), (left, _) in zip(toks, positions, strict=True):
            if not left:
                raise ValueError(f"the pair ({s.text!r}, {a.text!r}) shares no tokens to score with CPS: use 'pll'")
        requests = [
            (t.ids, pos) for (s, a), (ls, rs) in zip(toks, positions, strict=True) for t, pos in ((s, ls), (a, rs))
        ]
        values = self.masked_log_probs(requests)
        out = []
        for k, ((s, a), (ls, rs), (left, right)) in enumerate(zip(toks, positions, shared, strict=True)):
            out.append(
                PairScores(
                    sentence_scores(s, "cps", ls, values[2 * k], modified=modified_flags(len(s), left)),
                    sentence_scores(a, "cps", rs, values[2 * k + 1], modified=modified_flags(len(a), right)),
                )
            )
        return out


# -- helpers ---------------------------------------------------------------------------------------------
def _check_metric(metric: str) -> None:
    if metric not in MASKED_METRICS:
        raise ValueError(f"`metric` must be one of {MASKED_METRICS}, got {metric!r}")


def _progress(total: int, enabled: bool, desc: str, unit: str = "copy") -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, disable=not enabled, desc=desc, unit=unit, leave=False)
