// Inline help texts with their sources, shared by every widget's "?" button
// (lib/ui.js helpButton). Add entries here for new widgets (e.g. NLI or sense
// measures) so the same term is explained the same way everywhere.
//
//   helpPanel(["d", "p", "alpha"]) -> <div class="embias-help"> with one entry per key
//   an entry may also be given inline: {term: "...", text: "...", cite: "..."}
import { h } from "./dom.js";

const CALISKAN = "Caliskan, Bryson & Narayanan (2017), Science 356:183-186";
const MAY = "May et al. (2019), On Measuring Social Biases in Sentence Encoders, NAACL";
const ETHAYARAJH = "Ethayarajh, Duvenaud & Hirst (2019), Understanding Undesirable Word Embedding Associations, ACL";
const NANGIA = "Nangia et al. (2020), CrowS-Pairs, EMNLP";
const KANEKO = "Kaneko & Bollegala (2022), Unmasking the Mask: Evaluating Social Biases in Masked Language Models, AAAI";
const ZHOU = "Zhou, Kaneko & Bollegala (2022), Sense Embeddings are also Biased – Evaluating Social Biases in Static and Contextualised Sense Embeddings, ACL";
const MILLER = "Miller (1995), WordNet: a lexical database for English, CACM; WordNet 3.0 sense keys as used by LMMS and ARES";
const SALAZAR = "Salazar et al. (2020), Masked Language Model Scoring, ACL";
const KAUF = "Kauf & Ivanova (2023), A Better Way to Do Masked Language Model Scoring, ACL";

export const HELP = {
  sense_key: {
    term: "sense key",
    text: "A WordNet 3.0 sense key names one meaning of a lemma: lemma%type:file:id:head:head_id, type 1 noun, 2 verb, 3 adjective, 4 adverb, 5 adjective satellite (nurse%1:18:00:: is the person, nurse%2:29:00:: the verb 'to nurse an illness'). Keys of other WordNet versions differ.",
    cite: MILLER,
  },
  lexname: {
    term: "lexname",
    text: "The lexicographer file of a sense: its coarse semantic class (noun.person, verb.body, adj.all, ...). The number after the lemma is the sense's rank among the lemma's senses of that part of speech (1 = most frequent in WordNet's counts).",
    cite: MILLER,
  },
  sense_weat: {
    term: "sense WEAT",
    text: "WEAT over sense vectors: every target and attribute is one sense, and a lemma written without a key stands for all of its senses (each comparison takes the most similar pair of senses, the max variant). Same effect size and permutation test as WEAT.",
    cite: ZHOU,
  },
  word_vector: {
    term: "word-level twin (eq. 7)",
    text: "The sense-insensitive vector of a lemma is the mean of the vectors of all its senses (Zhou et al., eq. 7). The same test on those vectors shows what a word embedding would report, so a bias that only one sense carries shows up as a gap between the two bars.",
    cite: ZHOU,
  },
  sense_groups: {
    term: "scores by sense",
    text: "The pair bias score of the pairs of one sense key or one sense type (Zhou et al., eq. 6). Beside it, the mean score of the group's distinct stereotypical and anti-stereotypical sentences: a comparison that needs no pairing (not defined for CPS, whose sentence score depends on its partner).",
    cite: ZHOU,
  },
  sw: {
    term: "s(w, A, B)",
    text: "How much closer word w is to the attribute words A than to B: mean cosine of w with the words of A minus mean cosine with the words of B. One bar per target word; hover a bar for its two cosine means.",
    cite: CALISKAN,
  },
  d: {
    term: "effect size d",
    text: "Mean s(w) over target set X minus mean over Y, divided by the standard deviation of s(w) over all target words (a Cohen's d). Positive: X is closer to A (and Y to B). |d| is at most 2; 0.2 / 0.5 / 0.8 are often read as small / medium / large.",
    cite: CALISKAN,
  },
  p: {
    term: "p-value",
    text: "How often a random re-split of the target words into two sets of the same sizes gives a test statistic at least as large as the observed one (one-sided permutation test; exact when all splits can be enumerated, otherwise sampled).",
    cite: `${CALISKAN}; ${MAY}`,
  },
  significance: {
    term: "* and alpha",
    text: "The star marks p < alpha, the significance level shown beside it (0.01 unless you chose another: the level of the report and the batch command). One test at that level; with many tests, correct for multiple testing (the batch command reports Holm-adjusted p).",
    cite: CALISKAN,
  },
  interval: {
    term: "interval of d (whiskers)",
    text: "The BCa bootstrap interval of d: the words of each of X, Y, A and B are drawn with replacement within their set many times (seeded) and d recomputed; the interval is read from those replicates, corrected for their bias and skew. It is an interval for d with other words of the same kinds (the level is shown); the p-value answers for these words. A wide interval means the chosen words, not only the model, decide d.",
    cite: "Efron (1987), bias-corrected and accelerated intervals; Ethayarajh, Duvenaud & Hirst (2019) on how WEAT depends on the word sets",
  },
  stability: {
    term: "stable / fragile",
    text: "Stable when the test is significant (with these words) and the interval of d excludes 0 (with other words of the same kinds); otherwise fragile, with one sentence saying why, e.g. significant for these words while the interval over word choice includes 0. Random subsets keeping 80% of every set's words show how far d moves; they do not decide the verdict.",
    cite: "Efron (1987); Antoniak & Mimno (2021), Bad Seeds: Evaluating Lexical Methods for Bias Measurement, ACL",
  },
  influence: {
    term: "word influence",
    text: "d with one word left out, for every word of the four sets: the bar is how far d moves, the number d without the word. The words that move d most, or flip its sign or significance, are marked ●; click a word (or its bar above) for d and p without it.",
    cite: "Antoniak & Mimno (2021); Ethayarajh, Duvenaud & Hirst (2019)",
  },
  small_sets: {
    term: "tiny sets",
    text: "With one word per target set |d| is fixed (2, or the square root of 2 with the sample standard deviation), whatever the words: effect sizes from tiny sets say nothing.",
    cite: ETHAYARAJH,
  },
  ripa: {
    term: "RIPA",
    text: "Relational inner product association: RIPA(w) = <w, b>, where b is the unit relation vector from the ordered pairs (first word minus second, their first principal direction). Positive: w leans to the first words of the pairs. The pairs' own words are drawn in the top rows.",
    cite: ETHAYARAJH,
  },
  cps: {
    term: "CPS",
    text: "CrowS-Pairs score of a sentence: the sum of log P of the words the two sentences share, each masked in turn, given the rest (the words that differ stay visible). The pair's bias score is the % of pairs whose stereotypical sentence scores higher (50 = unbiased).",
    cite: NANGIA,
  },
  pll: {
    term: "PLL",
    text: "Pseudo-log-likelihood: the sum of log P of every token, each masked in turn.",
    cite: SALAZAR,
  },
  pll_word_l2r: {
    term: "PLL-word-l2r",
    text: "PLL, but each token is scored with the later pieces of its own word masked too ('souvenir' = so ##uven ##ir: 'so' is guessed without seeing ##uven ##ir). Original PLL over-rates words split into several tokens; prefer this when the words that differ between two sentences split differently.",
    cite: KAUF,
  },
  aul: {
    term: "AUL / AULA",
    text: "All unmasked likelihood: the mean log P of every token with nothing masked (AULA weights each token by the attention it receives).",
    cite: KANEKO,
  },
  more_likely: {
    term: "higher is more likely",
    text: "Scores are log-probabilities: closer to 0 means the model finds the sentence more likely. 'preferred' marks the sentence the model scores higher; token shades are darker for less likely tokens.",
    cite: NANGIA,
  },
  minimal_edit: {
    term: "minimal edit",
    text: "Pair scores compare two sentences that differ only in the words naming the group (a minimal edit). A warning marks pairs that differ in more places: their score difference mixes in other changes.",
    cite: NANGIA,
  },
};

/** The help panel for `keys` (names in HELP or inline {term, text, cite} entries). */
export function helpPanel(keys) {
  const entries = keys.map((k) => (typeof k === "string" ? HELP[k] : k)).filter(Boolean);
  return h(
    "div",
    { className: "embias-help", attrs: { role: "note" } },
    h(
      "dl",
      {},
      ...entries.flatMap((e) => [
        h("dt", { text: e.term }),
        h("dd", {}, h("span", { text: e.text }), e.cite ? h("cite", { text: ` (${e.cite})` }) : null),
      ]),
    ),
  );
}
