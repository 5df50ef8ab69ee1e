// NliExplorer: an NLI bias probe (Dev et al. 2020) on a subset, drawn as it runs.
// The view sends what the user picks and types (probe, model, subset sizes,
// heatmap label, a clicked cell, the typed premise/hypothesis, Run); Python
// scores everything and answers in synced traits. Sentences and words are
// data: they reach the page only through textContent. No statistic here.
import "./nli_explorer.css";
import { h, listen } from "./lib/dom.js";
import { busyIndicator, button, errorState, helpButton, mountRoot, select, toolbar } from "./lib/ui.js";
import { heatColor } from "./lib/palette.js";
import { exportButtons, fileStem, toCSV } from "./lib/export.js";

const LABELS = ["entailment", "neutral", "contradiction"];
const SHORT = { entailment: "e", neutral: "n", contradiction: "c" };
const CITE = "Dev, Li, Phillips & Srikumar (2020), On Measuring and Mitigating Biased Inferences of Word Embeddings, AAAI";
const HELP = [
  { term: "the probe", text: "Premise and hypothesis differ only in the subject (\"The accountant ate a bagel.\" / \"The man ate a bagel.\"). Neither should entail or contradict the other: every pair should be neutral, and deviation from neutral is bias.", cite: CITE },
  { term: "NN, FN, T:τ", text: "Net Neutral: mean P(neutral). Fraction Neutral: share of pairs whose most likely label is neutral. Threshold τ: share of pairs with P(neutral) > τ. 1 everywhere is unbiased.", cite: CITE },
  { term: "two levels", text: "Over sentence pairs (AllenNLP's fairness metric, MABEL), and over word pairs after averaging (e, n, c) of each (premise word, hypothesis word) over its templates (the authors' evaluation script).", cite: CITE },
  { term: "heatmap", text: "Mean P(label) of each (premise word, hypothesis word) over the templates scored so far; click a cell to see its sentence pairs.", cite: CITE },
];

function send(model, name, value) {
  model.set(name, value);
  model.save_changes();
}

const fmt = (v, d = 3) => (v === null || v === undefined ? "–" : Number(v).toFixed(d));

/** Three horizontal bars (entailment, neutral, contradiction) for one probability vector. */
function encBars(row, { compact = false } = {}) {
  return h(
    "div",
    { className: `nle-enc${compact ? " nle-enc-compact" : ""}` },
    LABELS.map((label) =>
      h(
        "div",
        { className: "nle-enc-row", dataset: { label } },
        h("span", { className: "nle-enc-name", text: compact ? SHORT[label] : label }),
        h("span", { className: "nle-track" }, h("span", { className: `nle-fill nle-${label}`, style: `width: ${Math.max(0, Math.min(1, row[label])) * 100}%` })),
        h("span", { className: "nle-enc-value", text: fmt(row[label]) }),
      ),
    ),
  );
}

function render({ model, el }) {
  mountRoot(el, "embias-nli-explorer");
  const busy = busyIndicator(el);
  const errors = errorState(el);
  const help = helpButton(HELP, { title: "What is measured here?" });

  const probeSel = select("probe", [], model.get("probe"), (v) => send(model, "probe", v), { className: "nle-probe" });
  const modelSel = select("model", [], model.get("model_name"), (v) => send(model, "model_name", v), { className: "nle-model" });
  const nWords = h("input", { type: "number", min: 1, className: "nle-n-words", value: model.get("n_premise_words"), title: "premise words to score" });
  const nTemplates = h("input", { type: "number", min: 1, className: "nle-n-templates", value: model.get("n_templates"), title: "templates per word pair" });
  nWords.addEventListener("change", () => send(model, "n_premise_words", Math.max(1, parseInt(nWords.value, 10) || 1)));
  nTemplates.addEventListener("change", () => send(model, "n_templates", Math.max(1, parseInt(nTemplates.value, 10) || 1)));
  const runButton = button("Run", () => {
    busy.pending();
    send(model, "run_requests", model.get("run_requests") + 1);
  }, { title: "score the subset", className: "nle-run" });
  const exports = exportButtons({
    stem: () => fileStem("nli", model.get("probe"), model.get("model_name"), model.get("heatmap").label || "neutral"),
    csv: () => {
      const hm = model.get("heatmap");
      const rows = [];
      (hm.premise_words || []).forEach((p, i) => (hm.hypothesis_words || []).forEach((w, j) => rows.push([p, w, hm.values[i][j]])));
      return toCSV(["premise_word", "hypothesis_word", `mean_${hm.label}`], rows);
    },
  });

  const bar = toolbar(probeSel.label, modelSel.label,
    h("label", { className: "embias-label" }, "premise words ", nWords),
    h("label", { className: "embias-label" }, "templates ", nTemplates),
    runButton, busy.node, exports, help.button);
  const demo = h("div", { className: "embias-warning nle-demo" });
  const sizeLine = h("div", { className: "nle-size" });
  const progressBar = h("progress", { className: "nle-progress", max: 1, value: 0 });
  const progressText = h("span", { className: "nle-progress-text", attrs: { "aria-live": "polite" } });
  const scoresBox = h("div", { className: "nle-scores embias-result" });

  const labelSel = select("heatmap", LABELS.map((l) => [l, `mean P(${l})`]), model.get("label"), (v) => send(model, "label", v), { className: "nle-label" });
  const heat = h("div", { className: "nle-heat embias-result" });
  const cellBox = h("div", { className: "nle-cell embias-result" });

  const premiseIn = h("input", { type: "text", className: "nle-premise", placeholder: "premise, e.g. The nurse bought a car.", value: model.get("premise_text"), attrs: { "aria-label": "premise" } });
  const hypothesisIn = h("input", { type: "text", className: "nle-hypothesis", placeholder: "hypothesis, e.g. The woman bought a car.", value: model.get("hypothesis_text"), attrs: { "aria-label": "hypothesis" } });
  let typedTimer = null;
  const sendTyped = () => {
    clearTimeout(typedTimer);
    typedTimer = setTimeout(() => {
      model.set("premise_text", premiseIn.value);
      model.set("hypothesis_text", hypothesisIn.value);
      model.save_changes();
    }, 150);
  };
  premiseIn.addEventListener("input", sendTyped);
  hypothesisIn.addEventListener("input", sendTyped);
  const typedOut = h("div", { className: "nle-typed-out", attrs: { "aria-live": "polite" } });
  const topBox = h("div", { className: "nle-top embias-result" });

  el.append(
    bar, help.panel, errors.node, demo, sizeLine, h("div", { className: "nle-progress-row" }, progressBar, progressText),
    h("div", { className: "nle-section" }, h("div", { className: "nle-title", text: "Neutrality (1 = every pair neutral)" }), scoresBox),
    h("div", { className: "nle-section" }, h("div", { className: "nle-title" }, "Word pairs ", labelSel.label), heat, cellBox),
    h("div", { className: "nle-section nle-typed" }, h("div", { className: "nle-title", text: "Try your own pair" }), premiseIn, hypothesisIn, typedOut),
    h("div", { className: "nle-section" }, topBox),
  );

  function drawControls() {
    probeSel.setOptions((model.get("probes") || []).map(([n]) => [n, n]), model.get("probe"));
    modelSel.setOptions((model.get("models") || []).map(([n]) => [n, n]), model.get("model_name"));
    nWords.value = model.get("n_premise_words");
    nTemplates.value = model.get("n_templates");
    labelSel.setOptions(LABELS.map((l) => [l, `mean P(${l})`]), model.get("label"));
  }

  function drawSize() {
    const s = model.get("size") || {};
    if (!s.n_pairs) return sizeLine.replaceChildren();
    sizeLine.textContent = `Scoring ${s.n_pairs.toLocaleString()} pairs (${s.premise_words} of ${s.whole_premise_words} premise words × ${s.hypothesis_words} hypothesis words × ${s.templates} of ${s.whole_templates} templates); the whole probe has ${s.whole_pairs.toLocaleString()} pairs.`;
  }

  function drawProgress() {
    const p = model.get("progress") || {};
    progressBar.max = Math.max(1, p.n_pairs || 1);
    progressBar.value = p.n_scored || 0;
    progressText.textContent = p.n_pairs ? `${(p.n_scored || 0).toLocaleString()} / ${p.n_pairs.toLocaleString()} pairs${p.done ? ` in ${fmt(p.seconds, 1)} s` : "…"}` : "";
  }

  function drawScores() {
    const sc = model.get("scores") || {};
    const levels = [["pairs", "sentence pairs"], ["word_pairs", "word pairs"]];
    scoresBox.replaceChildren(
      ...levels.filter(([k]) => sc[k]).map(([k, name]) =>
        h("div", { className: "nle-level", dataset: { level: k } },
          h("div", { className: "nle-level-name", text: `over ${name}`, title: (sc.notes || {})[k] || "" }),
          ...Object.entries(sc[k]).map(([measure, value]) =>
            h("div", { className: "nle-score", dataset: { measure } },
              h("span", { className: "nle-measure", text: measure.replaceAll("_", " ") }),
              h("span", { className: "nle-track" }, h("span", { className: "nle-fill nle-neutral", style: `width: ${Math.max(0, Math.min(1, value ?? 0)) * 100}%` })),
              h("span", { className: "nle-score-value", text: fmt(value) }))),
        )),
    );
  }

  function drawHeat() {
    const hm = model.get("heatmap") || {};
    const cell = model.get("cell") || [];
    const cols = hm.hypothesis_words || [];
    const table = h("table", { className: "nle-heat-table", attrs: { role: "grid" } });
    table.append(h("tr", {}, h("th", { text: "premise \\ hypothesis" }), ...cols.map((w) => h("th", { text: w, attrs: { scope: "col" } }))));
    (hm.premise_words || []).forEach((p, i) => {
      const tr = h("tr", {}, h("th", { text: p, attrs: { scope: "row" } }));
      cols.forEach((w, j) => {
        const v = hm.values[i][j];
        const picked = cell[0] === p && cell[1] === w;
        const td = h("td", {
          className: `nle-heat-cell${v === null ? " nle-pending" : ""}${picked ? " nle-picked" : ""}`,
          text: v === null ? "" : fmt(v, 2),
          title: v === null ? `${p} / ${w}: not scored yet` : `${p} / ${w}: mean P(${hm.label}) ${fmt(v)}`,
          dataset: { premise: p, hypothesis: w },
          attrs: { tabindex: "0", role: "gridcell" },
        });
        if (v !== null) td.style.background = heatColor(v);
        const pick = () => send(model, "cell", [p, w]);
        td.addEventListener("click", pick);
        td.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick(); } });
        tr.append(td);
      });
      table.append(tr);
    });
    heat.replaceChildren(table);
  }

  function drawCell() {
    const cell = model.get("cell") || [];
    const rows = model.get("cell_pairs") || [];
    if (cell.length !== 2) return cellBox.replaceChildren(h("div", { className: "nle-hint", text: "Click a cell to see its sentence pairs." }));
    cellBox.replaceChildren(
      h("div", { className: "nle-title", text: `${cell[0]} / ${cell[1]}: ${rows.length} sentence pairs` }),
      h("div", { className: "nle-pairs" }, ...rows.map((r) =>
        h("div", { className: "nle-pair" },
          h("div", { className: "nle-sentences" }, h("div", { className: "nle-p", text: r.premise }), h("div", { className: "nle-h", text: r.hypothesis })),
          encBars(r, { compact: true })))),
    );
  }

  function drawTyped() {
    const t = model.get("typed") || {};
    if (!t.premise) return typedOut.replaceChildren(h("div", { className: "nle-hint", text: "Type a premise and a hypothesis." }));
    typedOut.replaceChildren(encBars(t), h("div", { className: "nle-hint", text: `computed in Python in ${fmt(t.ms, 0)} ms` }));
  }

  function drawTop() {
    const top = model.get("top") || {};
    topBox.replaceChildren(
      ...["entailment", "contradiction"].filter((by) => (top[by] || []).length).map((by) =>
        h("div", { className: "nle-top-table", dataset: { by } },
          h("div", { className: "nle-title", text: `Top pairs by ${by}` }),
          h("table", {},
            h("tr", {}, ...["premise", "hypothesis", "e", "n", "c"].map((c) => h("th", { text: c }))),
            ...top[by].map((r) => h("tr", {}, h("td", { text: r.premise }), h("td", { text: r.hypothesis }),
              ...LABELS.map((l) => h("td", { className: "nle-num", text: fmt(r[l]) }))))))),
    );
  }

  function drawState() {
    // an error, a refused input, or numbers of a previous probe/model/subset: greyed (.embias-result)
    errors.show(model, { staleText: "These numbers are of the previous probe, model or subset: press Run." });
    const note = model.get("demo_note");
    demo.textContent = note;
    demo.hidden = !note;
    if (model.get("busy")) busy.set(true, "scoring…");
    else busy.done();
  }

  drawControls(); drawSize(); drawProgress(); drawScores(); drawHeat(); drawCell(); drawTyped(); drawTop(); drawState();
  const offs = [
    listen(model, ["probes", "models", "probe", "model_name", "n_premise_words", "n_templates", "label"], drawControls),
    listen(model, ["size"], drawSize),
    listen(model, ["progress"], drawProgress),
    listen(model, ["scores"], drawScores),
    listen(model, ["heatmap", "cell"], drawHeat),
    listen(model, ["cell", "cell_pairs"], drawCell),
    listen(model, ["typed"], drawTyped),
    listen(model, ["top"], drawTop),
    listen(model, ["error", "stale", "refused", "demo_note", "busy"], drawState),
  ];
  return () => offs.forEach((off) => off());
}

export default { render };
