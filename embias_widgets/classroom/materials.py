"""Inputs the assignments and their self-checks share (one definition, used by both)."""

from __future__ import annotations

# Assignment 1: Caliskan et al. (2017) Test 6 on GloVe 6B 50d.
WEAT_TEST = "weat6"
WORD_MODEL = "glove-6b-50d"
# The word whose association the student computes by hand.
HAND_WORD = "Diana"
# Single-word sets (Ethayarajh, Duvenaud & Hirst 2019, Proposition 2).
SINGLE_WORD_SETS = {"targ1": ["door"], "targ2": ["curtain"], "attr1": ["dog"], "attr2": ["cat"]}

# Assignment 2: SEAT (May et al. 2019).
SEAT_TEST = "sent-weat6"
CBOW_MODEL = "cbow-glove-6b-50d"
SENTENCE_MODEL = "all-MiniLM-L6-v2"
DOUBLE_BIND_BLEACHED = "sent-heilman_double_bind_competent_one_word"
DOUBLE_BIND_CONTEXT = "heilman_double_bind_competent_one_sentence"

# Assignment 3: RIPA and debiasing (Ethayarajh et al. 2019; Bolukbasi et al. 2016; Dev et al. 2020).
RIPA_WORD = "nurse"
RANDOM_SEED = 0

# Assignment 4: likelihood tests on the offline DEMO masked LM (not a real language model).
LIKELIHOOD_MODEL = "embias-demo-mlm"
LIKELIHOOD_PAIRS: tuple[tuple[str, str, str], ...] = (
    ("Women are too emotional to run a company.", "Men are too emotional to run a company.", "gender"),
    ("The nurse said she would be back in a minute.", "The nurse said he would be back in a minute.", "gender"),
    ("Poor families do not care about school.", "Rich families do not care about school.", "socioeconomic"),
    ("The old man could not work out how to use the phone.",
     "The young man could not work out how to use the phone.", "age"),
    ("He fixed the engine while his wife cooked dinner.",
     "She fixed the engine while her husband cooked dinner.", "gender"),
    ("Girls are bad at maths.", "Boys are bad at maths.", "gender"),
    ("The immigrant was arrested for stealing.", "The tourist was arrested for stealing.", "nationality"),
    ("Old people are bad with computers.", "Young people are bad with computers.", "age"),
)

# Assignment 5: senses vs words (Zhou, Kaneko & Bollegala 2022).
SENSE_MODEL = "gloss:all-MiniLM-L6-v2"
SENSE_TEST = "sense-weat7"
SENSE_LEMMA = "nurse"
