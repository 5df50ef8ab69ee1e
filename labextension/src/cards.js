/**
 * The Launcher cards: one per widget, each the first cell of a new notebook.
 *
 * The code is what a person would type; it runs as is on the base install's
 * embedded models (GloVe 6B 50d, the demo masked LM, the demo NLI model).
 */

const LIKELIHOOD_PAIRS = `pairs = [
    ("Women are too emotional to run a company.", "Men are too emotional to run a company.", "gender"),
    ("The nurse said she would be back in a minute.", "The nurse said he would be back in a minute.", "gender"),
    ("Poor families do not care about school.", "Rich families do not care about school.", "socioeconomic"),
]`;

/**
 * Each card's icon (24 x 24, drawn in JupyterLab's icon colour class so it follows the theme): what the
 * widget draws, so the cards tell apart at a glance.
 */
const ICON = (body) => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><g class="jp-icon3" fill="#616161" stroke="#616161">${body}</g></svg>`;
export const ICONS = {
  // an effect-size bar with its interval whiskers
  'weat-explorer': ICON('<rect x="3" y="9" width="13" height="6" rx="1" stroke="none"/>'
    + '<path d="M10 12h11M10 8v8M21 8v8" fill="none" stroke-width="1.6"/><path d="M3 4v16" fill="none" stroke-width="1.2"/>'),
  // a word's senses: one stem, three branches
  'sense-selector': ICON('<circle cx="5" cy="12" r="2.5" stroke="none"/><circle cx="19" cy="5" r="2" stroke="none"/>'
    + '<circle cx="19" cy="12" r="2" stroke="none"/><circle cx="19" cy="19" r="2" stroke="none"/>'
    + '<path d="M7 12h10M7 11l10-6M7 13l10 6" fill="none" stroke-width="1.4"/>'),
  // the sense WEAT: two bars (sense level, word level) under the branches
  'sense-weat-explorer': ICON('<circle cx="4" cy="6" r="2" stroke="none"/><path d="M6 6h6M6 5l6-3M6 7l6 3" fill="none" stroke-width="1.2"/>'
    + '<rect x="3" y="14" width="14" height="3" rx="0.5" stroke="none"/><rect x="3" y="19" width="9" height="3" rx="0.5" stroke="none"/>'),
  // words as dots on a gender axis
  'relation-projection': ICON('<path d="M2 12h20" fill="none" stroke-width="1.6"/><path d="M12 8v8" fill="none" stroke-width="1.2"/>'
    + '<circle cx="5" cy="12" r="2.2" stroke="none"/><circle cx="9" cy="12" r="1.6" stroke="none"/>'
    + '<circle cx="16" cy="12" r="1.6" stroke="none"/><circle cx="20" cy="12" r="2.2" stroke="none"/>'),
  // two sentences, one outlined as preferred
  'likelihood-table': ICON('<rect x="3" y="5" width="18" height="5" rx="1" fill="none" stroke-width="1.8"/>'
    + '<rect x="3" y="14" width="12" height="5" rx="1" stroke="none"/>'),
  // entailment / neutral / contradiction: a small heatmap
  'nli-explorer': ICON('<rect x="3" y="3" width="5" height="5" stroke="none"/><rect x="10" y="3" width="5" height="5" stroke="none" opacity="0.55"/>'
    + '<rect x="17" y="3" width="4" height="5" stroke="none" opacity="0.3"/><rect x="3" y="10" width="5" height="5" stroke="none" opacity="0.55"/>'
    + '<rect x="10" y="10" width="5" height="5" stroke="none"/><rect x="17" y="10" width="4" height="5" stroke="none" opacity="0.55"/>'
    + '<rect x="3" y="17" width="5" height="4" stroke="none" opacity="0.3"/><rect x="10" y="17" width="5" height="4" stroke="none" opacity="0.55"/>'
    + '<rect x="17" y="17" width="4" height="4" stroke="none"/>'),
  // a page with a chart on it
  report: ICON('<path d="M5 2h10l4 4v16H5z" fill="none" stroke-width="1.6"/>'
    + '<rect x="8" y="14" width="2.5" height="5" stroke="none"/><rect x="12" y="11" width="2.5" height="8" stroke="none"/>'
    + '<path d="M8 7h6" fill="none" stroke-width="1.4"/>'),
};

/** @type {{id: string, label: string, caption: string, code: string}[]} */
export const CARDS = [
  {
    id: 'weat-explorer',
    label: 'WEAT explorer',
    caption: 'Edit a WEAT test and watch the effect size, its interval and each word\'s influence change',
    code: 'from embias_widgets.widgets import WeatExplorer\n\n'
      + 'WeatExplorer("weat6")  # Caliskan et al. Test 6 on GloVe 6B 50d: names x career/family',
  },
  {
    id: 'sense-weat-explorer',
    label: 'Sense WEAT explorer',
    caption: 'A WEAT over WordNet senses, beside the word-level test of the same items (Zhou et al. 2022)',
    code: 'from embias_widgets.widgets import SenseWeatExplorer\n\n'
      + 'SenseWeatExplorer("sense-weat7", model="gloss:all-MiniLM-L6-v2")  # sense vectors from WordNet glosses; '
      + 'LMMS: model="lmms_2048.bert-large-cased.npz"',
  },
  {
    id: 'relation-projection',
    label: 'RIPA projection',
    caption: 'Words on a gender axis from definitional pairs (RIPA, Ethayarajh et al. 2019)',
    code: 'from embias_widgets.stimuli.projection_stimuli import BOLUKBASI_DEFINITIONAL_PAIRS\n'
      + 'from embias_widgets.widgets import RelationProjectionWidget\n\n'
      + 'RelationProjectionWidget(\n'
      + '    BOLUKBASI_DEFINITIONAL_PAIRS,\n'
      + '    {"occupations": ["nurse", "homemaker", "receptionist", "engineer", "programmer", "carpenter"]},\n'
      + '    model="glove-6b-50d",\n'
      + ')',
  },
  {
    id: 'sense-selector',
    label: 'Sense selector',
    caption: 'Pick WordNet senses by typing a lemma',
    code: 'from embias_widgets.widgets import SenseSelector\n\n'
      + 'SenseSelector(["nurse%1:18:00::", "nurse%2:29:00::"], label="two senses of nurse")',
  },
  {
    id: 'likelihood-table',
    label: 'Likelihood table',
    caption: 'Score stereotypical / less stereotypical sentence pairs with a masked language model',
    code: 'from embias_widgets.widgets import PairedLikelihoodTable\n\n'
      + `${LIKELIHOOD_PAIRS}\n`
      + 'PairedLikelihoodTable(pairs, model="embias-demo-mlm", metric="cps")  # a demo model; try "bert-base-uncased"',
  },
  {
    id: 'nli-explorer',
    label: 'NLI explorer',
    caption: 'Probe an NLI model for bias on a subset of neutral sentence pairs',
    code: 'from embias_widgets.widgets import NliExplorer\n\n'
      + 'NliExplorer("gender-occupation", "embias-demo-nli", n_premise_words=4, n_templates=6)',
  },
  {
    id: 'report',
    label: 'Report',
    caption: 'Audit a model across every method that applies to it',
    code: 'from embias_widgets.analysis.report import Report\n\n'
      + 'Report(models=["glove-6b-50d"], quick=True).run()',
  },
];

/** The Launcher category the cards sit in. */
export const CATEGORY = 'embias-widgets';
