"""Device and dtype for every model kind, on the CPU: bfloat16 and float16 agree with float32 within the
tolerance the options state (sentence vectors, masked- and causal-LM token scores, NLI probabilities),
float32 stays the default and stays exact, a dtype torch cannot run and a missing CUDA device are one clear
message each, and batches are sized from free GPU memory only on CUDA. Tiny random models built here."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from _tiny_lm import build_tiny_mlm, one_thread, tiny_mlm_dir
from _tiny_nli import tiny_nli_dir

from embias_widgets.models import load_model, runtime
from embias_widgets.models.language_models import CausalLMScorer, MaskedLMScorer
from embias_widgets.models.language_models.loading import load_likelihood_model
from embias_widgets.models.nli_classifiers.cross_encoder import CrossEncoderNli
from embias_widgets.models.runtime import DTYPE_TOLERANCE, check_dtype, place_model, precision_note, token_budget
from embias_widgets.models.sentence_encoders.transformer import padded_batches

SENTENCES = [
    "The nurse said that she would be late.",
    "The engineer fixed the bridge before the storm.",
    "My neighbour is a quiet man who repairs clocks.",
    "She is a patient teacher.",
]
HALF = ("bfloat16", "float16")
NO_CUDA = pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message of a machine without CUDA")

_one_thread = pytest.fixture(autouse=True)(one_thread)


def _tokenizer():
    import transformers

    return transformers.BertTokenizer.from_pretrained(str(tiny_mlm_dir()))


# -- dtype checks ------------------------------------------------------------------------------------------------
def test_unknown_dtype_is_named():
    with pytest.raises(ValueError, match=r"--dtype must be one of float32, bfloat16, float16, got 'half'"):
        check_dtype("half")


def test_a_dtype_torch_cannot_run_is_refused_with_what_to_use(monkeypatch):
    def no_half(*args, **kwargs):
        raise RuntimeError('"LayerNormKernelImpl" not implemented for \'Half\'')

    monkeypatch.setattr(torch.nn.functional, "layer_norm", no_half)
    with pytest.raises(ValueError, match=r"--dtype float16: torch .* cannot run float16 on cpu .*; use --dtype "
                       r"float32 or --dtype bfloat16"):
        check_dtype("float16", "cpu")


def test_half_precisions_run_on_this_cpu_and_float32_is_default():
    assert check_dtype("bfloat16", "cpu") == "bfloat16"
    assert check_dtype("float16", "cpu") == "float16"  # torch >= 2.1 runs float16 on the CPU (slowly)
    assert check_dtype(None) is None and precision_note(None) == "" and precision_note("float32") == ""
    assert precision_note("bfloat16", "scores") == (
        "dtype=bfloat16 (scores agree with float32 to about 2e-01 log-probability per token)")


def test_place_model_brings_half_weights_to_float32_and_keeps_float64():
    half = torch.nn.Linear(3, 3).to(torch.float16)
    model, device, dtype = place_model(half, "cpu")
    assert (device, dtype, model.weight.dtype) == ("cpu", "float32", torch.float32)
    double = torch.nn.Linear(3, 3).double()
    assert place_model(double, "cpu")[2] == "float64"
    assert place_model(double, "cpu", "bfloat16")[0].weight.dtype == torch.bfloat16


# -- device: one message for every loader --------------------------------------------------------------------------
LOADERS = {
    "sentence": lambda: load_model(str(tiny_mlm_dir()), device="cuda"),
    "masked": lambda: load_likelihood_model(str(tiny_mlm_dir()), device="cuda"),
    "nli": lambda: CrossEncoderNli.from_pretrained(str(tiny_nli_dir()), device="cuda"),
    "place": lambda: place_model(torch.nn.Linear(2, 2), "cuda"),
}


@NO_CUDA
@pytest.mark.parametrize("loader", list(LOADERS))
def test_cuda_without_cuda_is_one_clear_message(loader):
    message = r"--device cuda: this machine has no CUDA device torch can use .*; use --device cpu"
    with pytest.raises(ValueError, match=message):
        LOADERS[loader]()


# -- each model kind within its stated tolerance ---------------------------------------------------------------------
@pytest.mark.parametrize("dtype", HALF)
def test_sentence_vectors_agree_within_the_stated_tolerance(dtype):
    exact = load_model(str(tiny_mlm_dir()), device="cpu", batch_size=2)
    half = load_model(str(tiny_mlm_dir()), device="cpu", dtype=dtype, batch_size=2)
    assert half.dtype == dtype and exact.dtype == "float32"
    assert precision_note(dtype, "vectors") in half.options and "dtype" not in exact.options
    a, b = exact.encode(SENTENCES).vectors, half.encode(SENTENCES).vectors
    cosine_distance = 1 - np.sum(a * b, axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    assert cosine_distance.max() <= DTYPE_TOLERANCE[dtype]["vectors"]
    assert not np.array_equal(a, b), "the half-precision model must really run in half precision"


def _token_log_probs(scorer, metric="pll") -> np.ndarray:
    return np.concatenate([s.log_probs[s.counted] for s in scorer.score_sentences(SENTENCES, metric)])


@pytest.mark.parametrize("dtype", HALF)
def test_masked_lm_token_scores_agree_within_the_stated_tolerance(dtype):
    exact = load_likelihood_model(str(tiny_mlm_dir()), device="cpu", progress=False)
    half = load_likelihood_model(str(tiny_mlm_dir()), device="cpu", dtype=dtype, progress=False)
    assert half.model.dtype == getattr(torch, dtype) and half.precision_note.startswith(f"dtype={dtype} (scores")
    assert exact.precision_note == "" and exact.dtype == "float32"
    diff = np.abs(_token_log_probs(half) - _token_log_probs(exact))
    assert 0 < diff.max() <= DTYPE_TOLERANCE[dtype]["scores"]


@pytest.mark.parametrize("dtype", HALF)
def test_causal_lm_token_scores_agree_within_the_stated_tolerance(dtype):
    import transformers

    tokenizer = _tokenizer()
    config = transformers.GPT2Config(vocab_size=tokenizer.vocab_size, n_embd=32, n_layer=2, n_head=2,
                                     n_positions=64)
    torch.manual_seed(0)
    exact = CausalLMScorer(transformers.GPT2LMHeadModel(config).eval(), tokenizer, device="cpu", progress=False)
    torch.manual_seed(0)
    half = CausalLMScorer(transformers.GPT2LMHeadModel(config).eval(), tokenizer, device="cpu", dtype=dtype,
                          progress=False)
    diff = np.abs(_token_log_probs(half) - _token_log_probs(exact))
    assert 0 < diff.max() <= DTYPE_TOLERANCE[dtype]["scores"]


@pytest.mark.parametrize("dtype", HALF)
def test_nli_probabilities_agree_within_the_stated_tolerance(dtype):
    exact = CrossEncoderNli.from_pretrained(str(tiny_nli_dir()), device="cpu")
    half = CrossEncoderNli.from_pretrained(str(tiny_nli_dir()), device="cpu", dtype=dtype)
    assert half.precision_note.startswith(f"dtype={dtype} (probabilities agree")
    premises, hypotheses = SENTENCES, SENTENCES[::-1]
    diff = np.abs(half.predict(premises, hypotheses) - exact.predict(premises, hypotheses))
    assert 0 < diff.max() <= DTYPE_TOLERANCE[dtype]["probabilities"]


def test_float32_default_is_exactly_the_float32_result():
    tokenizer = _tokenizer()
    given = MaskedLMScorer(build_tiny_mlm(tokenizer, max_positions=128), tokenizer, device="cpu", dtype="float32",
                           progress=False)
    default = MaskedLMScorer(build_tiny_mlm(tokenizer, max_positions=128), tokenizer, device="cpu", progress=False)
    np.testing.assert_array_equal(_token_log_probs(given), _token_log_probs(default))
    assert default.token_budget == 8192, "the CPU budget is unchanged"


def test_gloss_sense_vectors_take_dtype_through_their_encoder():
    pytest.importorskip("nltk")  # WordNet is read with nltk
    sense = load_model(f"gloss:{tiny_mlm_dir()}", device="cpu", dtype="bfloat16")
    assert sense.encoder.dtype == "bfloat16" and "dtype=bfloat16 (vectors agree" in sense.options


def test_word_vectors_ignore_device_and_dtype(glove):
    assert load_model("glove-6b-50d", device="cpu", dtype="bfloat16").options == glove.options


# -- batches sized from free GPU memory ------------------------------------------------------------------------------
def test_token_budget_is_sized_from_free_gpu_memory_only_on_cuda(monkeypatch):
    model = build_tiny_mlm(_tokenizer(), max_positions=128)
    assert token_budget(None, model, "cpu") == 8192 and token_budget(300, model, "cuda") == 300
    per_token = runtime.bytes_per_token(model, "bfloat16")
    # 2 * 2 bytes * (4 * 32 + 64 + 2 heads * 128 positions) + 8 * 30522 vocabulary
    assert per_token == 4 * (4 * 32 + 64 + 2 * 128) + 8 * model.config.vocab_size
    free = 10 * 2**30
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda device=None: (free, 2 * free))
    expected = int(free * runtime.GPU_MEMORY_SHARE) // per_token
    assert token_budget(None, model, "cuda", "bfloat16") == min(runtime.MAX_GPU_TOKENS, expected)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda device=None: (1000, 2000))
    assert token_budget(None, model, "cuda") == 128, "at least one full-length sequence"
    with pytest.raises(ValueError, match=r"`token_budget` must be a positive number of tokens, got 0"):
        token_budget(0, model, "cpu")


def test_padded_batches_cap_tokens_and_give_a_long_sentence_its_own_batch():
    lengths = [5, 40, 6, 7, 100, 8]
    batches = padded_batches(lengths, lengths, batch_size=4, cap=32)
    assert sorted(i for b in batches for i in b) == list(range(6))
    for batch in batches:
        assert len(batch) <= 4
        assert len(batch) == 1 or len(batch) * max(lengths[i] for i in batch) <= 32
    assert [4] in batches and [1] in batches
    assert padded_batches(lengths, lengths, batch_size=4, cap=None) == [[0, 2, 3, 5], [1, 4]]  # CPU: as before


def test_a_token_cap_changes_no_sentence_vector():
    free = load_model(str(tiny_mlm_dir()), device="cpu", batch_size=4)
    capped = load_model(str(tiny_mlm_dir()), device="cpu", batch_size=4, token_budget=12, pooling="max")
    plain = load_model(str(tiny_mlm_dir()), device="cpu", batch_size=4, pooling="max")
    assert free.token_budget is None and capped.token_budget == 12
    np.testing.assert_allclose(capped.encode(SENTENCES).vectors, plain.encode(SENTENCES).vectors, atol=1e-5)


# -- the command line ------------------------------------------------------------------------------------------------
def _cli(argv: list[str]) -> tuple[int, str]:
    import io

    from embias_widgets.cli import main

    out = io.StringIO()
    return main(argv, out=out), out.getvalue()


def test_pll_dtype_is_stated_in_the_result(shared_data):
    import json

    csv = shared_data / "crows_pairs" / "crows_pairs_anonymized.csv"
    code, out = _cli(["pll", "--model", str(tiny_mlm_dir()), "--pairs", str(csv), "--limit", "2", "--no-progress",
                      "--dtype", "bfloat16", "--device", "cpu", "--format", "json"])
    assert code == 0
    assert json.loads(out)["notes"][0] == precision_note("bfloat16", "scores")


def test_weat_dtype_reaches_a_sentence_encoder(tmp_path):
    import json

    test = tmp_path / "t.jsonl"
    rows = {"targ1": {"category": "A", "examples": ["The nurse is here.", "The teacher is here."]},
            "targ2": {"category": "B", "examples": ["The engineer is here.", "The pilot is here."]},
            "attr1": {"category": "C", "examples": ["She is kind.", "She is warm."]},
            "attr2": {"category": "D", "examples": ["He is strong.", "He is tall."]}}
    test.write_text(json.dumps(rows), encoding="utf-8")
    code, out = _cli(["weat", str(test), "--model", str(tiny_mlm_dir()), "--dtype", "bfloat16", "--device", "cpu",
                      "--format", "json"])
    assert code == 0
    assert precision_note("bfloat16", "vectors") in json.loads(out)["options"]


@NO_CUDA
@pytest.mark.parametrize("command", ["pll", "nli", "weat"])
def test_cli_cuda_without_cuda_is_one_line(command, capsys, shared_data):
    argv = {
        "pll": ["pll", "--model", str(tiny_mlm_dir()), "--pairs",
                str(shared_data / "crows_pairs" / "crows_pairs_anonymized.csv"), "--limit", "1"],
        "nli": ["nli", "--probe", "gender-occupation", "--model", str(tiny_nli_dir()), "--limit", "1"],
        "weat": ["weat", "sent-weat1", "--model", str(tiny_mlm_dir())],
    }[command]
    capsys.readouterr()  # building the tiny models writes bars; the command's own stderr is what counts
    code, _ = _cli([*argv, "--device", "cuda"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err
    assert f"embias {command}: error: --device cuda: this machine has no CUDA device" in err


def test_inference_leaves_cudnn_attention_out_only_for_half_precision_on_cuda(monkeypatch):
    import torch.nn.attention as attention

    chosen = []

    def record(backends):
        chosen.append(list(backends))
        return torch.inference_mode()  # any context manager stands in for the kernel choice

    monkeypatch.setattr(attention, "sdpa_kernel", record)
    for device, dtype in (("cpu", "bfloat16"), ("cuda", "float32"), ("cuda", None), ("cuda:0", "float16")):
        with runtime.inference(device, dtype):
            assert torch.is_inference_mode_enabled()
    assert len(chosen) == 1 and attention.SDPBackend.CUDNN_ATTENTION not in chosen[0]
