// NliExplorer: an NLI bias probe (Dev et al. 2020) on a subset, drawn as it runs.
// The view sends what the user picks and types (probe, model, subset sizes,
// heatmap label, a clicked cell, the typed premise/hypothesis, Run); Python
// scores everything and answers in synced traits. Sentences and words are
// data: they reach the page only through textContent. No statistic here.
import "./nli_explorer.css";
import { h, listen } from "./lib/dom.js";
import { busyIndicator, button, errorState, helpButton, mountRoot, select, toolbar } from "./lib/ui.js";
import { heatColor } from "./lib/palette.js";
import { heatScale } from "./lib/heat.js";
import { exportButtons, fileStem, toCSV } from "./lib/export.js";
import { cellSvg, heatmapSvg, measuresOf, nliFigureSpec } from "./lib/nli_figure.js";
import { formatInterval, formatValue } from "./lib/format.js";

const LABELS = ["entailment", "neutral", "contradiction"];
const SHORT = { entailment: "e", neutral: "n", contradiction: "c" };
const CITE = "Dev, Li, Phillips & Srikumar (2020), On Measuring and Mitigating Biased Inferences of Word Embeddings, AAAI";
const HELP = [
  { term: "the probe", text: "Premise and hypothesis differ only in the subject (\"The accountant ate a bagel.\" / \"The man ate a bagel.\"). Neither should entail or contradict the other: every pair should be neutral, and deviation from neutral is bias.", cite: CITE },
  { term: "NN, FN, T:τ", text: "Net Neutral: mean P(neutral). Fraction Neutral: share of pairs whose most likely label is neutral. Threshold τ: share of pairs with P(neutral) > τ. 1 everywhere is unbiased.", cite: CITE },
  { term: "two levels", text: "Over sentence pairs (AllenNLP's fairness metric, MABEL), and over word pairs after averaging (e, n, c) of each (premise word, hypothesis word) over its templates (the authors' evaluation script).", cite: CITE },
  { term: "heatmap", text: "Mean P(label) of each (premise word, hypothesis word) over the templates scored so far. The colour scale spans the values shown (see its legend); darker always means further from neutral, the unbiased outcome. Click a cell to see its sentence pairs beside their e/n/c bars.", cite: CITE },
  { term: "premise words", text: "Type or pick premise words (each one of the probe's), or leave none picked to score a random sample of the given size; \"another sample\" draws a new one (seeded, so it can be repeated)." },
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

/** The legend of the heatmap's fitted scale: light end, gradient, dark end, each end with its value. */
function drawLegend(node, scale, label) {
  const [[v0, t0], [v1, t1]] = scale.ends;
  const ramp = h("span", { className: "nle-legend-ramp" });
  ramp.style.background = `linear-gradient(to right, ${heatColor(0)}, ${heatColor(1)})`;
  node.replaceChildren(
    h("span", { className: "nle-legend-end", text: `${fmt(v0)} ${t0}` }), ramp,
    h("span", { className: "nle-legend-end", text: `${fmt(v1)} ${t1}` }),
    h("span", { className: "nle-hint", text: `mean P(${label}); scale fitted to the cells shown` }),
  );
  node.dataset.lo = String(scale.lo);
  node.dataset.hi = String(scale.hi);
}

/** Premise words: chips of the picked words, an input with the probe's words to pick from, and the random
 * sample (its size and "another sample") used while none is picked. */
function premisePicker(model) {
  const listId = `nle-words-${Math.random().toString(36).slice(2)}`;
  const options = h("datalist", { id: listId });
  const input = h("input", { type: "text", className: "nle-word-input", placeholder: "type or pick a premise word", title: "type or pick a premise word; Enter adds it", attrs: { list: listId, "aria-label": "add a premise word" } });
  const chips = h("span", { className: "nle-word-chips" });
  const note = h("span", { className: "nle-hint nle-sample-note" });
  const suggest = h("div", { className: "nle-suggest", attrs: { "aria-live": "polite" } });
  // a refused word's close matches (Python's): click one to put it in place of the word and send the words
  const replace = (word, alt) => {
    const refused = (model.get("refused") || {}).premise_words?.value;
    const words = Array.isArray(refused) ? refused.map((w) => String(w).trim()) : (model.get("premise_words") || []);
    send(model, "premise_words", [...new Set(words.map((w) => (w === word ? alt : w)))]);
  };
  const resample = button("another sample", () => send(model, "sample_seed", model.get("sample_seed") + 1), { title: "draw another random sample of premise words", className: "nle-resample" });
  const add = () => {
    const word = input.value.trim();
    if (!word) return;
    input.value = "";
    send(model, "premise_words", [...(model.get("premise_words") || []).filter((w) => w !== word), word]);
  };
  input.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); add(); } });
  input.addEventListener("change", () => { if ((model.get("premise_choices") || []).includes(input.value.trim())) add(); });
  const node = h("div", { className: "nle-words" }, h("span", { className: "embias-label", text: "premise words " }), chips, input, options, resample, note, suggest);
  function draw() {
    suggest.replaceChildren(...Object.entries(model.get("premise_suggestions") || {}).map(([word, alts]) =>
      h("div", { className: "nle-suggest-row", dataset: { word } },
        h("span", { className: "nle-hint", text: alts.length ? `"${word}" is not a premise word of the probe; use ` : `"${word}" is not a premise word of the probe (no close match)` }),
        ...alts.map((alt) => button(alt, () => replace(word, alt), { className: "nle-suggest-word", title: `use ${alt} instead of ${word}`, ariaLabel: `use ${alt} instead of ${word}` })))));
    const picked = model.get("premise_words") || [];
    options.replaceChildren(...(model.get("premise_choices") || []).filter((w) => !picked.includes(w)).map((w) => h("option", { value: w })));
    chips.replaceChildren(...picked.map((w) => h("span", { className: "nle-word-chip", dataset: { word: w } }, w,
      h("button", { className: "nle-word-remove", text: "×", attrs: { type: "button", "aria-label": `remove ${w}` },
        on: { click: () => send(model, "premise_words", picked.filter((x) => x !== w)) } }))));
    resample.hidden = picked.length > 0;
    const size = model.get("size") || {};
    note.textContent = picked.length ? "" : `a random sample (seed ${model.get("sample_seed")}) of ${size.premise_words ?? model.get("n_premise_words")} of ${size.whole_premise_words ?? "the"} words`;
  }
  draw();
  return { node, draw };
}

function render({ model, el }) {
  mountRoot(el, "embias-nli-explorer");
  const busy = busyIndicator(el);
  const errors = errorState(el);
  const help = helpButton(HELP, { title: "What is measured here?" });

  const probeSel = select("probe", [], model.get("probe"), (v) => send(model, "probe", v), { className: "nle-probe" });
  const modelSel = select("model", [], model.get("model_name"), (v) => send(model, "model_name", v), { className: "nle-model" });
  const nWords = h("input", { type: "number", min: 1, className: "nle-n-words", value: model.get("n_premise_words"), title: "how many premise words the random sample takes (when none is picked)" });
  const nTemplates = h("input", { type: "number", min: 1, className: "nle-n-templates", value: model.get("n_templates"), title: "templates per word pair" });
  nWords.addEventListener("change", () => send(model, "n_premise_words", Math.max(1, parseInt(nWords.value, 10) || 1)));
  nTemplates.addEventListener("change", () => send(model, "n_templates", Math.max(1, parseInt(nTemplates.value, 10) || 1)));
  const runButton = button("Run", () => {
    busy.pending();
    send(model, "run_requests", model.get("run_requests") + 1);
  }, { title: "score the subset", className: "nle-run" });
  const stopButton = button("Stop", () => {
    stopButton.disabled = true;
    el.dataset.stopClicked = String(performance.now());
    send(model, "stop_requests", model.get("stop_requests") + 1);
  }, { title: "stop after the premise word being scored; what is scored stays", className: "nle-stop" });
  const words = premisePicker(model);
  const figureSource = h("div", { className: "nle-figure-source", attrs: { hidden: "" } }); // SVGs built for an export
  const exports = exportButtons({
    stem: () => fileStem("nli", model.get("probe"), model.get("model_name"), model.get("heatmap").label || "neutral"),
    figure: () => nliFigureSpec(model),
    svgs: () => {
      const svgs = [heatmapSvg(model.get("heatmap") || {}, model.get("cell") || []), cellSvg(model.get("cell"), model.get("cell_pairs") || [])].filter(Boolean);
      figureSource.replaceChildren(...svgs);
      return svgs;
    },
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
    runButton, stopButton, busy.node, exports, help.button);
  const demo = h("div", { className: "embias-warning nle-demo" });
  const sizeLine = h("div", { className: "nle-size" });
  const progressBar = h("progress", { className: "nle-progress", max: 1, value: 0 });
  const progressText = h("span", { className: "nle-progress-text", attrs: { "aria-live": "polite" } });
  const scoresBox = h("div", { className: "nle-scores embias-result" });

  const labelSel = select("heatmap", LABELS.map((l) => [l, `mean P(${l})`]), model.get("label"), (v) => send(model, "label", v), { className: "nle-label" });
  const templateSel = select("template", [["", "mean over templates"]], model.get("template"), (v) => send(model, "template", v), { className: "nle-template", title: "the heatmap of one template alone, or the mean over the templates scored" });
  const templateLine = h("div", { className: "nle-hint nle-template-line embias-result" });
  const heat = h("div", { className: "nle-heat embias-result" });
  const legend = h("div", { className: "nle-legend", attrs: { "aria-label": "colour scale" } });
  const cellBox = h("div", { className: "nle-cell embias-result" });

  // short hints that fit any width; the example pair is a line of its own, which wraps
  const premiseIn = h("input", { type: "text", className: "nle-premise", placeholder: "premise", value: model.get("premise_text"), attrs: { "aria-label": "premise" } });
  const hypothesisIn = h("input", { type: "text", className: "nle-hypothesis", placeholder: "hypothesis", value: model.get("hypothesis_text"), attrs: { "aria-label": "hypothesis" } });
  const typedExample = h("div", { className: "nle-hint", text: "e.g. premise \u201cThe nurse bought a car.\u201d, hypothesis \u201cThe woman bought a car.\u201d" });
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
    bar, help.panel, words.node, errors.node, demo, sizeLine, h("div", { className: "nle-progress-row" }, progressBar, progressText),
    h("div", { className: "nle-section" }, h("div", { className: "nle-title", text: "Neutrality (1 = every pair neutral)" }), scoresBox),
    h("div", { className: "nle-section" }, h("div", { className: "nle-title" }, "Word pairs ", labelSel.label, templateSel.label), templateLine, legend, h("div", { className: "nle-heat-and-cell" }, heat, cellBox)),
    h("div", { className: "nle-section nle-typed" }, h("div", { className: "nle-title", text: "Try your own pair" }), typedExample, premiseIn, hypothesisIn, typedOut),
    h("div", { className: "nle-section" }, topBox),
    figureSource,
  );

  function drawControls() {
    probeSel.setOptions((model.get("probes") || []).map(([n]) => [n, n]), model.get("probe"));
    modelSel.setOptions((model.get("models") || []).map(([n]) => [n, n]), model.get("model_name"));
    nWords.value = model.get("n_premise_words");
    nTemplates.value = model.get("n_templates");
    labelSel.setOptions(LABELS.map((l) => [l, `mean P(${l})`]), model.get("label"));
    drawTemplates();
  }

  function drawTemplates() { // per template NN (Python's NliProbeResult.templates()); the picker lists them
    const t = model.get("templates") || {};
    const rows = t.rows || [];
    templateSel.setOptions([["", "mean over templates"], ...rows.map((r) => [r.template, `${r.template} (NN ${formatValue(r.net_neutral, "number")})`])], (model.get("heatmap") || {}).template || "");
    templateLine.textContent = rows.length > 1
      ? `NN per template: most neutral "${t.most_neutral.template}" ${formatValue(t.most_neutral.net_neutral, "number")}, least neutral "${t.least_neutral.template}" ${formatValue(t.least_neutral.net_neutral, "number")} (spread ${formatValue(t.spread, "number")}, over ${rows.length} templates)`
      : "";
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
    const stopped = p.stopped ? " (stopped: the numbers are of the pairs scored)" : "";
    progressText.textContent = p.n_pairs ? `${(p.n_scored || 0).toLocaleString()} / ${p.n_pairs.toLocaleString()} pairs${p.done ? ` in ${fmt(p.seconds, 1)} s${stopped}` : "…"}` : "";
    el.dataset.stopped = String(Boolean(p.stopped));
  }

  function drawScores() {
    const sc = model.get("scores") || {};
    const levels = [["pairs", "sentence pairs"], ["word_pairs", "word pairs"]];
    scoresBox.replaceChildren(
      ...levels.filter(([k]) => sc[k]).map(([k, name]) =>
        h("div", { className: "nle-level", dataset: { level: k } },
          h("div", { className: "nle-level-name", text: `over ${name}`, title: (sc.notes || {})[k] || "" }),
          ...measuresOf(sc[k]).map(([measure, value, iv]) =>
            h("div", { className: "nle-score", dataset: { measure } },
              h("span", { className: "nle-measure", text: measure.replaceAll("_", " ") }),
              h("span", { className: "nle-track" }, h("span", { className: "nle-fill nle-neutral", style: `width: ${Math.max(0, Math.min(1, value ?? 0)) * 100}%` })),
              h("span", { className: "nle-score-value", text: formatValue(value, "number"),
                title: iv ? `${Math.round(100 * iv.level)}% interval ${formatInterval(iv, "number")}: ${iv.method}` : "" }),
              h("span", { className: "nle-score-interval", text: iv ? `${Math.round(100 * iv.level)}% interval ${formatInterval(iv, "number")}` : "" }))),
        )),
    );
  }

  function drawHeat() {
    const hm = model.get("heatmap") || {};
    const cell = model.get("cell") || [];
    const cols = hm.hypothesis_words || [];
    const table = h("table", { className: "nle-heat-table", attrs: { role: "grid" } });
    const scale = heatScale((hm.values || []).flat(), hm.label);
    drawLegend(legend, scale, hm.label);
    table.append(h("tr", {}, h("th", { text: "premise \\ hypothesis" }), ...cols.map((w) => h("th", { text: w, attrs: { scope: "col" } }))));
    (hm.premise_words || []).forEach((p, i) => {
      const tr = h("tr", {}, h("th", { text: p, attrs: { scope: "row" } }));
      cols.forEach((w, j) => {
        const v = hm.values[i][j];
        const picked = cell[0] === p && cell[1] === w;
        const td = h("td", {
          className: `nle-heat-cell${v === null ? " nle-pending" : ""}${picked ? " nle-picked" : ""}`,
          text: v === null ? "" : fmt(v, 2),
          title: v === null ? `${p} / ${w}: not scored yet` : `${p} / ${w}: ${hm.template ? `P(${hm.label}) under "${hm.template}"` : `mean P(${hm.label})`} ${fmt(v)}`,
          dataset: { premise: p, hypothesis: w },
          attrs: { tabindex: "0", role: "gridcell" },
        });
        if (v !== null) {
          td.style.background = heatColor(scale.shade(v));
          td.dataset.shade = scale.shade(v).toFixed(3);
        }
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
    const running = Boolean(model.get("busy"));
    if (running) busy.set(true, "scoring…");
    else busy.done();
    runButton.disabled = running;
    stopButton.disabled = !running;
    stopButton.hidden = !running;
  }

  drawControls(); drawSize(); drawProgress(); drawScores(); drawHeat(); drawCell(); drawTyped(); drawTop(); drawState();
  const offs = [
    listen(model, ["probes", "models", "probe", "model_name", "n_premise_words", "n_templates", "label"], drawControls),
    listen(model, ["premise_words", "premise_choices", "sample_seed", "size", "premise_suggestions"], words.draw),
    listen(model, ["size"], drawSize),
    listen(model, ["progress"], drawProgress),
    listen(model, ["scores"], drawScores),
    listen(model, ["heatmap", "cell"], drawHeat),
    listen(model, ["templates", "heatmap"], drawTemplates),
    listen(model, ["cell", "cell_pairs"], drawCell),
    listen(model, ["typed"], drawTyped),
    listen(model, ["top"], drawTop),
    listen(model, ["error", "stale", "refused", "demo_note", "busy"], drawState),
  ];
  return () => offs.forEach((off) => off());
}

export default { render };
