"""BBQ multiple-choice log-likelihoods: ours against lm-evaluation-harness's own, on the same local model.

    python bench/lm_eval_bbq_check.py [--items 60] [--bbq ../shared/data/bbq/data]

Needs ``lm_eval`` (not a dependency of this package: install it in a separate environment, e.g. ``python -m venv
--system-site-packages /tmp/lmeval && /tmp/lmeval/bin/pip install lm_eval``, and run this script with that
Python and this repository on ``PYTHONPATH``). Builds a tiny GPT-2-style model (byte-level BPE, no special tokens
added) and a tiny Llama-style model (``<s>`` added by its tokenizer) in a temporary folder, renders ``--items``
BBQ items with the ``doc_to_text`` of lm-eval's own ``bbq.yaml`` (read from the installed package, rendered by
``lm_eval.utils.apply_template``), asks ``HFLM.loglikelihood`` for every ``(context, " " + answer)`` request, and
compares with :func:`~embias_widgets.models.language_models.multiple_choice.score_choices`: the largest absolute
difference per model, and whether every item's argmax and per-character argmax (lm-eval's ``acc`` and ``acc_norm``)
agree. The test suite compares against a line-by-line re-implementation of the same code
(``tests/test_bbq_scoring.py``); this script checks that re-implementation against the real thing.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parents[1]


def _default_bbq() -> Path:
    """``$EMBIAS_DATA/bbq/data``, else ``../shared/data/bbq/data`` beside the repository."""
    given = os.environ.get("EMBIAS_DATA")
    root = Path(given).expanduser() if given else HERE.parent / "shared" / "data"
    return root / "bbq" / "data"



def _items(folder: Path, n: int) -> list[dict]:
    per_file = max(1, n // 6)
    docs: list[dict] = []
    for path in sorted(folder.glob("*.jsonl")):
        with path.open(encoding="utf-8") as handle:
            docs += [json.loads(line) for _, line in zip(range(per_file), handle, strict=False)]
    return docs[:n]


def _models(root: Path, texts: list[str]) -> dict[str, Path]:
    import torch
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    out = {}
    tk = Tokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    tk.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=1000, special_tokens=["<|endoftext|>"],
                                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    gpt = transformers.GPT2TokenizerFast(tokenizer_object=tk, bos_token="<|endoftext|>", eos_token="<|endoftext|>",
                                         unk_token="<|endoftext|>")
    torch.manual_seed(0)
    transformers.GPT2LMHeadModel(transformers.GPT2Config(vocab_size=len(gpt), n_embd=32, n_layer=2, n_head=2,
                                                         n_positions=512, initializer_range=0.5,
                                                         bos_token_id=gpt.bos_token_id,
                                                         eos_token_id=gpt.eos_token_id)).save_pretrained(
        root / "gpt2")
    gpt.save_pretrained(root / "gpt2")
    out["gpt2"] = root / "gpt2"
    sp = Tokenizer(models.BPE(unk_token="<unk>"))
    sp.pre_tokenizer = pre_tokenizers.Metaspace()
    sp.decoder = decoders.Metaspace()
    sp.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=1000, special_tokens=["<unk>", "<s>", "</s>"]))
    sp.post_processor = processors.TemplateProcessing(single="<s> $A", pair="<s> $A $B",
                                                      special_tokens=[("<s>", sp.token_to_id("<s>"))])
    llama_tok = transformers.PreTrainedTokenizerFast(tokenizer_object=sp, bos_token="<s>", eos_token="</s>",
                                                     unk_token="<unk>")
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=len(llama_tok), hidden_size=32, intermediate_size=64,
                                      num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
                                      max_position_embeddings=512, bos_token_id=llama_tok.bos_token_id,
                                      eos_token_id=llama_tok.eos_token_id, initializer_range=0.5)
    transformers.LlamaForCausalLM(config).save_pretrained(root / "llama")
    llama_tok.save_pretrained(root / "llama")
    out["llama"] = root / "llama"
    return out


def main() -> None:
    import lm_eval
    import yaml
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM
    from lm_eval.utils import apply_template

    from embias_widgets.models.language_models import load_likelihood_model
    from embias_widgets.models.language_models.multiple_choice import BBQ_PROMPT, score_choices

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=60)
    parser.add_argument("--bbq", type=Path, default=_default_bbq(),
                        help="folder of BBQ's .jsonl files (default: $EMBIAS_DATA/bbq/data, else "
                        "../shared/data/bbq/data)")
    args = parser.parse_args()
    task_yaml = Path(lm_eval.__file__).parent / "tasks" / "bbq" / "bbq_multiple_choice.yaml"
    text = task_yaml.read_text(encoding="utf-8").replace("!function", "")  # the yaml's tags name Python functions
    doc_to_text = yaml.safe_load(text)["doc_to_text"]
    docs = _items(args.bbq, args.items)
    contexts = [apply_template(doc_to_text, doc) for doc in docs]
    ours_contexts = [BBQ_PROMPT.format(context=d["context"], question=d["question"]) for d in docs]
    answers = [[d["ans0"], d["ans1"], d["ans2"]] for d in docs]
    print(json.dumps({"lm_eval": lm_eval.__version__, "doc_to_text": doc_to_text, "items": len(docs),
                      "prompts_equal": contexts == ours_contexts}))
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in _models(Path(tmp), [d["context"] + " " + d["question"] for d in docs] * 3).items():
            lm = HFLM(pretrained=str(path), device="cpu", batch_size=8, dtype="float32")
            requests = [Instance("loglikelihood", doc, (ctx, " " + a), idx=j)
                        for doc, ctx, choices in zip(docs, contexts, answers, strict=True)
                        for j, a in enumerate(choices)]
            theirs = np.array([ll for ll, _ in lm.loglikelihood(requests)]).reshape(len(docs), 3)
            scorer = load_likelihood_model(str(path), device="cpu", progress=False)
            ours = score_choices(scorer, contexts, answers)
            lengths = np.array([[float(len(a)) for a in choices] for choices in answers])
            print(json.dumps({
                "model": name, "max_abs_difference": float(np.abs(ours.log_likelihood - theirs).max()),
                "acc_argmax_agree": bool((ours.predicted("none") == theirs.argmax(axis=1)).all()),
                "acc_norm_argmax_agree": bool((ours.predicted("char") == (theirs / lengths).argmax(axis=1)).all()),
                "spread_between_answers": float(np.ptp(theirs, axis=1).mean()),
            }))


if __name__ == "__main__":
    main()
