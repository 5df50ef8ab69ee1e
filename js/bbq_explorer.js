// BbqExplorer: a language model's BBQ bias scores (Parrish et al. 2022) per category and context condition,
// with their intervals, the items of a clicked category with the model's three answer probabilities, and a
// question the user types. Python computes every number (synced traits); this view only draws them, and user
// text reaches the page through textContent only.
import "./bbq_explorer.css";
import { h, listen, s } from "./lib/dom.js";
import { busyIndicator, button, errorState, helpButton, mountRoot, toolbar } from "./lib/ui.js";
import { formatInterval, formatValue } from "./lib/format.js";

const CITE = "Parrish et al. (2022), BBQ: A Hand-Built Bias Benchmark for Question Answering, Findings of ACL";
const HELP = [
  { term: "BBQ", text: "Each item names two people in a context and asks a question about one of them. In an ambiguous context the answer is not given (the correct answer is \"unknown\"); in a disambiguated one it is.", cite: CITE },
  { term: "bias score", text: "Disambiguated: s = 2 × (answers that follow the stereotype ÷ answers that are not \"unknown\") − 1, × 100. Ambiguous: the same times (1 − accuracy). 0 means no measured bias, +100 always the stereotype, −100 always against it.", cite: CITE },
  { term: "whiskers", text: "A percentile bootstrap interval that redraws whole templates within the category: the items of one template share their wording and are not independent." },
  { term: "the model's answer", text: "Each answer is scored after the context and question (lm-evaluation-harness's prompt): a causal LM by the answer's log-likelihood, a masked LM by its pseudo-log-likelihood. The probabilities are the softmax of those scores over the three answers; the highest is the model's answer." },
];
const CONDITIONS = [["ambig", "ambiguous"], ["disambig", "disambiguated"]];
const TICKS = [-100, -50, 0, 50, 100];

function send(model, values) {
  for (const [k, v] of Object.entries(values)) model.set(k, v);
  model.save_changes();
}

/** A score in [-100, 100] as a percentage of the track's width. */
const pct = (v) => `${((Math.max(-100, Math.min(100, Number(v))) + 100) / 2).toFixed(3)}%`;

/** One condition's mark: the whisker (interval) and the score's dot (ambiguous) or square (disambiguated). */
function mark(cell, y, shape) {
  const g = s("g", { class: `bbq-mark bbq-${cell.context_condition}` });
  if (cell.low !== null && cell.high !== null && cell.low !== undefined) {
    g.append(s("line", { class: "bbq-whisker", x1: pct(cell.low), x2: pct(cell.high), y1: y, y2: y }));
  }
  if (cell.bias_score === null || cell.bias_score === undefined) return g;
  if (shape === "dot") g.append(s("circle", { class: "bbq-dot", cx: pct(cell.bias_score), cy: y, r: 5 }));
  else g.append(s("rect", { class: "bbq-square", x: pct(cell.bias_score), y: y - 4.5, width: 9, height: 9, transform: "translate(-4.5 0)" }));
  return g;
}

function cellText(cell) {
  if (!cell) return "–";
  const iv = cell.low === null || cell.low === undefined ? "" : ` ${formatInterval({ low: cell.low, high: cell.high }, "percent")}`;
  return `${formatValue(cell.bias_score, "percent")}${iv}`;
}

/** The chart: one row per category (its name a button), the two conditions' marks on a shared [-100, 100] axis. */
function chart(model, onPick) {
  const node = h("div", { className: "bbq-chart", attrs: { role: "list" } });
  function draw() {
    const cells = model.get("cells") || [];
    const selected = model.get("selected_category");
    const rows = (model.get("categories") || []).map((category) => {
      const of = Object.fromEntries(cells.filter((c) => c.category === category).map((c) => [c.context_condition, c]));
      const svg = s("svg", { class: "bbq-track", width: "100%", height: 34 });
      svg.append(s("line", { class: "bbq-zero", x1: "50%", x2: "50%", y1: 0, y2: 34 }));
      if (of.ambig) svg.append(mark(of.ambig, 11, "dot"));
      if (of.disambig) svg.append(mark(of.disambig, 25, "square"));
      const values = h("div", { className: "bbq-values" },
        ...CONDITIONS.map(([key, label]) => h("span", { className: `bbq-value bbq-value-${key}`, text: `${label}: ${cellText(of[key])}` })));
      return h("div", { className: "bbq-row", attrs: { role: "listitem" }, dataset: { category, selected: String(category === selected) } },
        button(category, () => onPick(category), { className: "bbq-category", title: `show the items of ${category}` }),
        h("div", { className: "bbq-bars" }, svg, values));
    });
    const axis = h("div", { className: "bbq-axis" }, h("span"), h("div", { className: "bbq-ticks" },
      ...TICKS.map((t) => h("span", { className: "bbq-tick", text: String(t), style: `left: ${pct(t)}` }))));
    const legend = h("div", { className: "bbq-legend" },
      h("span", { className: "bbq-key bbq-key-ambig", text: "● ambiguous (s_AMB)" }),
      h("span", { className: "bbq-key bbq-key-disambig", text: "■ disambiguated (s_DIS)" }),
      h("span", { className: "bbq-hint", text: "bias score ×100; whiskers: intervals redrawing templates" }));
    node.replaceChildren(legend, ...rows, axis);
  }
  draw();
  return { node, draw };
}

/** Three answers with their probability bars; the model's answer and the correct one marked. */
function answerBars(answers, probabilities, predicted, label = null) {
  return h("ol", { className: "bbq-answers", attrs: { start: 0 } }, ...answers.map((answer, k) => {
    const p = Number(probabilities[k] ?? 0);
    const tags = [k === predicted ? "model's answer" : null, k === label ? "correct" : null].filter(Boolean);
    return h("li", { className: "bbq-answer", dataset: { predicted: String(k === predicted), correct: String(k === label) } },
      h("span", { className: "bbq-answer-text", text: answer }),
      h("span", { className: "bbq-prob-track" }, h("span", { className: "bbq-prob-fill", style: `width: ${(Math.max(0, Math.min(1, p)) * 100).toFixed(2)}%` })),
      h("span", { className: "bbq-prob", text: p.toFixed(3) }),
      tags.length ? h("span", { className: "bbq-tags", text: tags.join(", ") }) : null);
  }));
}

/** The selected category's page of items. */
function itemList(model) {
  const node = h("div", { className: "bbq-items", attrs: { "aria-live": "polite" } });
  function draw() {
    const category = model.get("selected_category");
    node.hidden = !category;
    if (!category) return node.replaceChildren();
    const n = model.get("n_category_items");
    const page = model.get("item_page");
    const pages = Math.max(1, Math.ceil(n / 12));
    const pager = h("div", { className: "bbq-pager" },
      h("span", { className: "bbq-items-title", text: `${category}: ${n.toLocaleString("en")} items, page ${page + 1} of ${pages}` }),
      button("previous", () => send(model, { item_page: Math.max(0, page - 1) }), { className: "bbq-prev" }),
      button("next", () => send(model, { item_page: Math.min(pages - 1, page + 1) }), { className: "bbq-next" }),
      button("close", () => send(model, { selected_category: "", item_page: 0 }), { className: "bbq-close" }));
    pager.querySelector(".bbq-prev").disabled = page <= 0;
    pager.querySelector(".bbq-next").disabled = page >= pages - 1;
    const cards = (model.get("items") || []).map((item) => h("div", { className: "bbq-item", dataset: { index: item.index } },
      h("div", { className: "bbq-item-tags", text: `${item.context_condition} context, ${item.question_polarity} question` }),
      h("div", { className: "bbq-context", text: item.context }),
      h("div", { className: "bbq-question", text: item.question }),
      answerBars(item.answers, item.probabilities, item.predicted, item.label)));
    node.replaceChildren(pager, ...cards);
  }
  draw();
  return { node, draw };
}

/** The form for one's own context, question and three answers, and the model's probabilities for them. */
function ownForm(model, busy) {
  const typed = model.get("own_item") || {};
  const context = h("textarea", { className: "bbq-own-context", rows: 3, value: typed.context ?? "", placeholder: "a context naming two people", attrs: { "aria-label": "context" } });
  const question = h("input", { type: "text", className: "bbq-own-question", value: typed.question ?? "", placeholder: "a question about one of them", attrs: { "aria-label": "question" } });
  const answers = [0, 1, 2].map((k) => h("input", { type: "text", className: `bbq-own-answer bbq-own-answer-${k}`, value: (typed.answers || [])[k] ?? "", placeholder: ["the first person", "the second person", "Unknown"][k], attrs: { "aria-label": `answer ${k + 1}` } }));
  const result = h("div", { className: "bbq-own-result", attrs: { "aria-live": "polite" } });
  const score = button("Score", () => {
    busy.pending();
    send(model, { own_item: { context: context.value, question: question.value, answers: answers.map((a) => a.value) } });
  }, { className: "bbq-own-score", title: "score the three answers with the model" });
  function draw() {
    const got = model.get("own_result") || {};
    if (!got.answers) return result.replaceChildren();
    result.replaceChildren(answerBars(got.answers, got.probabilities, got.predicted),
      h("div", { className: "bbq-hint bbq-own-time", text: `scored in ${Math.round(got.elapsed_ms ?? 0)} ms (normalization: ${got.normalization})` }));
  }
  draw();
  const node = h("div", { className: "bbq-own" }, h("div", { className: "bbq-own-title", text: "Ask your own question" }),
    context, question, h("div", { className: "bbq-own-answers" }, ...answers), score, result);
  return { node, draw };
}

function render({ model, el }) {
  mountRoot(el, "embias-bbq-explorer");
  const busy = busyIndicator(el);
  const errors = errorState(el);
  const help = helpButton(HELP, { title: "What is measured here?" });
  const title = h("div", { className: "bbq-title" });
  const method = h("div", { className: "bbq-method" });
  const pick = (category) => send(model, { selected_category: category, item_page: 0 });
  const figure = chart(model, pick);
  const list = itemList(model);
  const own = ownForm(model, busy);
  el.replaceChildren(title, toolbar(help.button, busy.node), help.panel, method, errors.node, figure.node, list.node, own.node);
  function draw() {
    title.textContent = `BBQ with ${model.get("model_name")}`;
    method.textContent = model.get("method");
    errors.show(model);
    figure.draw();
    list.draw();
    own.draw();
    if (!model.get("busy")) busy.done();
  }
  draw();
  return listen(model, ["cells", "categories", "selected_category", "items", "item_page", "n_category_items", "own_result", "error", "stale", "refused", "busy", "revision"], draw);
}

export default { render };
