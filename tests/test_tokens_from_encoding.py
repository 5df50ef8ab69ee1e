"""A fast tokenizer's token strings are read from its encodings (no ``convert_ids_to_tokens`` call per text):
the same strings for WordPiece, byte-level BPE, SentencePiece BPE and unigram tokenizers, on text with
accents, emoji, CJK, typed control tokens, unknown characters and a word too long for WordPiece (a unigram
model writes an unknown piece as the text it covers; the vocabulary names it by the unknown token)."""

from __future__ import annotations

import _tiny_families as tf
import pytest
import transformers  # test extra: a missing install fails, never skips

from embias_widgets.models.language_models.tokens import encode_texts, tokenize_many

TEXTS = ["The doctor said he was tired.", "Émilie's café, naïve 😀 東京 ñ!", "zzqxj blorf \u200b tabs\there",
         "1234567890 $%^&*()", "ｆｕｌｌｗｉｄｔｈ ＡＢＣ and words", "a" * 150 + " end"]


def _tokenizers():
    yield "wordpiece", tf.wordpiece()
    yield "byte-level bpe", tf.byte_level_bpe()
    yield "sentencepiece bpe", tf.sentencepiece_bpe_llama()
    yield "unigram (xlm-r)", tf.sentencepiece_unigram(transformers.XLMRobertaTokenizer, "<s>", "</s>", "<unk>",
                                                      "<pad>", "<mask>", ("<s>", "<pad>", "</s>", "<unk>", "<mask>"))
    yield "unigram (deberta)", tf.sentencepiece_unigram(transformers.DebertaV2Tokenizer, "[CLS]", "[SEP]", "[UNK]",
                                                        "[PAD]", "[MASK]", ("[PAD]", "[CLS]", "[SEP]", "[UNK]",
                                                                            "[MASK]"))


@pytest.mark.parametrize(("name", "tokenizer"), list(_tokenizers()), ids=lambda v: v if isinstance(v, str) else "")
def test_tokens_are_convert_ids_to_tokens(name, tokenizer) -> None:
    got = tokenize_many(tokenizer, TEXTS, lowercase=False, max_length=None)
    enc = encode_texts(tokenizer, TEXTS, lowercase=False).enc
    assert enc.encodings  # the fast path ran
    unknown = 0
    for k, tok in enumerate(got):
        assert tok.tokens == tuple(tokenizer.convert_ids_to_tokens(list(tok.ids))), (name, TEXTS[k])
        unknown += tok.ids.count(tokenizer.unk_token_id) if tokenizer.unk_token_id is not None else 0
    if name.startswith(("wordpiece", "unigram")):
        assert unknown  # the texts reach the unknown token, so its naming is tested
