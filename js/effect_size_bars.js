// EffectSizeBars: the effect size d on a fixed -2..2 axis (values beyond it
// are clipped with an arrow and their value) with its interval as whiskers, p
// with its significance mark, alpha and correction, the stability verdict with
// its rule, one bar per target word for s(w, A, B) on its own axis, with the
// two cosine terms on hover, and the word-influence view (lib/robustness.js).
// Every number comes from Python; this view only maps numbers to pixels and
// formats them.
import "./effect_size_bars.css";
import { h, listen, s, signed } from "./lib/dom.js";
import { exportButtons, fileStem, toCSV } from "./lib/export.js";
import { figureSpec } from "./lib/effect_figure.js";
import { formatStat, formatValue } from "./lib/format.js";
import { fitWords } from "./lib/labels.js";
import { fitKey, wrapWords } from "./lib/wrap.js";
import { clipped, labelledTicks, linear, niceDomain, signedBar, tickLabel } from "./lib/scale.js";
import { drawWhisker, influenceView, intervalText, verdictNodes } from "./lib/robustness.js";
import { busyIndicator, errorState, helpButton, mountRoot, toolbar, watchWidth } from "./lib/ui.js";

let WIDTH = 560; // the drawing width: set from the root's width (watchWidth) before each draw
const AXIS = [-2, 2];
const ROW = 18;
let LABEL_W = 150;
const VALUE_W = 64;

function arrow(x, y, dir) {
  // a small triangle pointing out of the axis at x (dir = +1 right, -1 left)
  const pts = [[x, y - 6], [x + 7 * dir, y], [x, y + 6]].map((p) => p.join(",")).join(" ");
  return s("polygon", { points: pts, class: "esb-arrow" });
}

function drawEffect(svg, d, interval, without, significant) {
  const left = 30;
  const right = WIDTH - 30;
  const x = linear(AXIS, [left, right]);
  svg.replaceChildren(s("rect", { x: left, y: 10, width: right - left, height: 22, class: "esb-track" }));
  for (const tick of [-2, -1, 0, 1, 2]) {
    svg.append(s("line", { x1: x(tick), x2: x(tick), y1: 6, y2: 36, class: tick === 0 ? "esb-zero" : "esb-gridline" }));
    svg.append(s("text", { x: x(tick), y: 50, "text-anchor": "middle", class: "esb-tick" }, tickLabel(tick)));
  }
  if (d === null || d === undefined) return;
  const { x: bx, width } = signedBar(x, d);
  const marks = () => {
    drawWhisker(svg, x, interval, { y: 21, left, right });
    if (without !== null && without !== undefined) {
      const wx = x(without);
      svg.append(s("polygon", { points: `${wx},9 ${wx + 4},4 ${wx - 4},4`, class: "esb-without", "data-without": String(without) }),
        s("line", { x1: wx, x2: wx, y1: 9, y2: 33, class: "esb-without-line" }));
    }
  };
  svg.append(
    s("rect", {
      x: bx.toFixed(2),
      y: 12,
      width: width.toFixed(2),
      height: 18,
      class: d >= 0 ? "esb-bar esb-pos" : "esb-bar esb-neg",
      "data-effect-size": String(d),
    }),
  );
  marks();
  if (significant) {
    // the significance mark beside the bar's end (or its whisker's), as the report's figures mark it
    const tip = d >= 0 ? Math.max(d, interval?.high ?? d) : Math.min(d, interval?.low ?? d);
    const end = Math.max(left, Math.min(right, x(tip)));
    svg.append(s("text", { x: (end + (d >= 0 ? 4 : -4)).toFixed(2), y: 26, "text-anchor": d >= 0 ? "start" : "end", class: "esb-sig-mark", "data-significant": "true" }, "*"));
  }
  const side = clipped(d, AXIS);
  if (side) {
    const edge = side === "high" ? right : left;
    const dir = side === "high" ? 1 : -1;
    svg.append(
      arrow(edge + 2 * dir, 21, dir),
      s("text", { x: edge + 10 * dir, y: 8, "text-anchor": side === "high" ? "end" : "start", class: "esb-clip", "data-clipped": side }, `d = ${formatValue(d, "effect")} (beyond the axis)`),
    );
  }
}

/**
 * The rows drawn: one per target word (WEAT), or for SEAT one per word (the mean s of its sentences, with
 * their min..max) followed, when the word is opened, by one row per sentence. Python computed every number.
 */
function displayRows(perWord, groups, opened) {
  if (!groups.length) return perWord.map((r) => ({ ...r, kind: "word" }));
  const rows = [];
  for (const g of groups) {
    const key = `${g.set}\u0000${g.word}`;
    rows.push({ ...g, kind: "group", key, association: g.mean, open: opened.has(key) });
    if (opened.has(key)) {
      for (const x of g.sentences) rows.push({ kind: "sentence", set: g.set, category: g.category, word: g.word, sentence: x.sentence, association: x.association });
    }
  }
  return rows;
}

function rowLabel(r) {
  if (r.kind === "sentence") return fitWords(r.sentence, LABEL_W - 14, { keep: r.word });
  const text = fitKey(fitWords(r.word, LABEL_W - 14), LABEL_W - 14); // a long sense key: cut at a key boundary
  return r.kind === "group" ? `${r.open ? "▾" : "▸"} ${text}` : text;
}

function hoverable(nodes, tip, r) {
  for (const node of nodes) {
    node.addEventListener("mouseenter", (e) => tip.show(e, r));
    node.addEventListener("mousemove", (e) => tip.move(e));
    node.addEventListener("mouseleave", () => tip.hide());
  }
}

function drawWords(svg, rows, domain, ticks, cats, tip, onToggle, onPick) {
  const plotLeft = LABEL_W + 10;
  const plotRight = WIDTH - VALUE_W - 6;
  const x = linear(domain, [plotLeft, plotRight]);
  const top = 4;
  const axisY = top + rows.length * ROW + 4;
  const grouped = rows.some((r) => r.kind !== "word");
  // the axis title wrapped at words to the drawing's width (estimated widths run short of a wide font: 0.85)
  const titleLines = wrapWords(`${grouped ? "mean over its sentences of " : ""}s(w, A, B): ${rowsLabel(cats)}`, (WIDTH - 8) * 0.85);
  const height = axisY + 34 + 13 * (titleLines.length - 1);
  svg.setAttribute("height", String(height));
  svg.replaceChildren();
  const labelled = new Set(labelledTicks(ticks, x)); // a narrow plot labels fewer ticks, never overlapping
  for (const t of ticks) {
    svg.append(s("line", { x1: x(t), x2: x(t), y1: top, y2: axisY, class: t === 0 ? "esb-zero" : "esb-gridline" }));
    if (labelled.has(t)) svg.append(s("text", { x: x(t), y: axisY + 13, "text-anchor": "middle", class: "esb-tick" }, tickLabel(t)));
  }
  const centre = titleLines.length > 1 ? WIDTH / 2 : (plotLeft + plotRight) / 2;
  const title = s("text", { x: centre, y: axisY + 28, "text-anchor": "middle", class: "esb-axis-title" });
  titleLines.forEach((line, i) => title.append(s("tspan", { x: centre, dy: i ? 13 : 0 }, line)));
  svg.append(title);
  rows.forEach((r, i) => {
    const y = top + i * ROW;
    const sentence = r.kind === "sentence";
    const { x: bx, width } = signedBar(x, r.association);
    const inset = sentence ? 5 : 3;
    const bar = s("rect", {
      x: bx.toFixed(2),
      y: y + inset,
      width: Math.max(0.5, width).toFixed(2),
      height: ROW - 2 * inset,
      class: `esb-wordbar esb-${r.set}${sentence ? " esb-sentencebar" : ""}${r.kind === "group" ? " esb-groupbar" : ""}`,
      "data-word": r.word,
      "data-association": String(r.association),
      ...(sentence ? { "data-sentence": r.sentence } : {}),
      ...(r.kind === "group" ? { "data-mean": String(r.mean), "data-n": String(r.n) } : {}),
    });
    const label = s("text", {
      x: LABEL_W, y: y + 13, "text-anchor": "end",
      class: `esb-word${sentence ? " esb-sentence" : ""}${r.kind === "group" ? " esb-group" : ""}`,
      "data-word": r.word,
    }, rowLabel(r));
    if (!sentence && !label.textContent.endsWith(r.word)) label.append(s("title", {}, r.word)); // the full key
    const number = s("text", { x: WIDTH - 2, y: y + 13, "text-anchor": "end", class: "esb-num" }, signed(r.association, 3));
    const nodes = [bar, label, number];
    if (r.kind === "group") {
      const spread = s("line", { x1: x(r.min).toFixed(2), x2: x(r.max).toFixed(2), y1: y + ROW / 2, y2: y + ROW / 2, class: "esb-spread", "data-word": r.word });
      nodes.push(spread);
      label.setAttribute("tabindex", "0");
      label.setAttribute("role", "button");
      label.setAttribute("aria-expanded", String(Boolean(r.open)));
      label.setAttribute("aria-label", `${r.word}: ${r.n} sentences; ${r.open ? "hide" : "show"} them`);
      label.addEventListener("click", () => onToggle(r.key));
      label.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          onToggle(r.key);
        }
      });
    }
    hoverable(nodes, tip, r);
    if (r.kind !== "sentence") bar.addEventListener("click", () => onPick(r.set, r.word)); // its influence on d
    svg.append(...nodes);
    const side = clipped(r.association, domain);
    if (side) svg.append(arrow(side === "high" ? plotRight + 1 : plotLeft - 1, y + ROW / 2, side === "high" ? 1 : -1));
  });
}

function rowsLabel(cats) {
  return `cos(w, ${cats.attr1 || "A"}) − cos(w, ${cats.attr2 || "B"})`;
}

function tooltip(container, model) {
  const node = h("div", { className: "esb-tooltip", attrs: { role: "tooltip" } });
  node.hidden = true;
  container.append(node);
  const place = (e) => {
    const box = container.getBoundingClientRect();
    node.style.left = `${Math.min(e.clientX - box.left + 12, box.width - 220)}px`;
    node.style.top = `${e.clientY - box.top + 12}px`;
  };
  return {
    show(e, r) {
      const cats = model.get("categories") || {};
      const cos = model.get("cos_label") || "mean cos";
      const lines = r.kind === "group"
        ? [`${r.word} (${r.category}): ${r.n} sentence${r.n === 1 ? "" : "s"}`, `mean s(x, A, B) = ${signed(r.mean, 4)}`,
          `sd = ${Number(r.sd).toFixed(4)}, from ${signed(r.min, 4)} to ${signed(r.max, 4)}`, r.open ? "click to hide its sentences" : "click to show its sentences"]
        : [r.kind === "sentence" ? `${r.sentence} (${r.category})` : `${r.word} (${r.category})`, `s(w, A, B) = ${signed(r.association, 4)}`];
      if (r.cos_a !== undefined) {
        lines.push(`${cos}(w, ${cats.attr1 || "A"}) = ${signed(r.cos_a, 4)}`, `${cos}(w, ${cats.attr2 || "B"}) = ${signed(r.cos_b, 4)}`);
      }
      node.textContent = lines.join("\n");
      node.hidden = false;
      place(e);
    },
    move: place,
    hide() {
      node.hidden = true;
    },
  };
}

function render({ model, el }) {
  mountRoot(el, "embias-effect-size-bars");
  const title = h("div", { className: "esb-title" });
  const subtitle = h("div", { className: "esb-subtitle" });
  const effectSvg = s("svg", { width: WIDTH, height: 56, class: "esb-effect", role: "img" });
  const value = h("div", { className: "esb-value" });
  const how = h("div", { className: "esb-how" });
  const rule = h("div", { className: "esb-rule" });
  let without = null; // d without the word picked in the influence view (marked on d's axis)
  const influence = influenceView({
    onSelect: (r) => {
      const next = r ? r.effect_size_without ?? null : null;
      if (next === without) return;
      without = next;
      const failed = Boolean(model.get("error")) || Boolean(model.get("stale"));
      drawEffect(effectSvg, failed ? null : model.get("effect_size"), failed ? null : model.get("effect_size_interval"), without, !failed && Boolean(model.get("significant")));
      el.dataset.without = without === null ? "" : String(without);
    },
  });
  const error = errorState(el);
  const busy = busyIndicator(el);
  const legend = h("div", { className: "embias-legend esb-legend" });
  const figure = h("div", { className: "esb-figure" });
  const wordsSvg = s("svg", { width: WIDTH, height: 10, class: "esb-words", role: "img" });
  figure.append(wordsSvg);
  const tip = tooltip(figure, model);
  let fixedDomain = null;
  const opened = new Set(); // SEAT words whose sentences are shown
  const toggle = (key) => {
    if (opened.has(key)) opened.delete(key);
    else opened.add(key);
    update();
    const again = [...wordsSvg.querySelectorAll("text.esb-group")].find((n) => n.getAttribute("aria-expanded") !== null && n.dataset.word === key.split("\u0000")[1]);
    again?.focus();
  };
  let lastDomain = null;

  const fixed = h("input", { type: "checkbox", className: "esb-fixed", attrs: { "aria-label": "keep the per-word x scale across edits" } });
  fixed.addEventListener("change", () => {
    fixedDomain = fixed.checked ? lastDomain : null;
    update();
  });
  const stem = () => fileStem(model.get("test_name") || model.get("title") || "test", model.get("model_name") || "model");
  const exportsNode = exportButtons({
    stem,
    figure: () => figureSpec(model),
    csv: () => {
      const d = model.get("effect_size");
      const p = model.get("p_value");
      const ci = model.get("effect_size_interval") || {};
      const without = new Map((model.get("influence") || []).map((r) => [`${r.set}\u0000${r.word}`, r.effect_size_without]));
      const rows = (model.get("per_word") || []).map((r) => [
        model.get("test_name"), model.get("model_name"), r.set, r.category, r.word, r.association, r.cos_a, r.cos_b, d, p,
        ci.low, ci.high, ci.level, model.get("alpha"), model.get("correction"), (model.get("stability") || {}).verdict,
        without.get(`${r.set}\u0000${r.word}`),
      ]);
      return toCSV(["test", "model", "set", "category", "word", "association", "cos_a", "cos_b", "effect_size", "p_value",
        "effect_size_low", "effect_size_high", "interval_level", "alpha", "correction", "stability", "effect_size_without_word"], rows);
    },
    svgs: () => [effectSvg, wordsSvg],
  });
  const help = helpButton(["d", "interval", "p", "significance", "stability", "influence", "sw", "small_sets"]);
  const bar = toolbar(
    h("label", { className: "embias-check", title: "keep the per-word axis range as it is now across edits, so bars compare between edits (values beyond it are clipped with an arrow)" }, fixed, "keep this x scale"),
    exportsNode,
    busy.node,
    h("span", { className: "embias-spacer" }),
    help.button,
  );

  let width = 560;
  function update() {
    WIDTH = width;
    LABEL_W = Math.min(150, Math.round(width * 0.3));
    effectSvg.setAttribute("width", String(width));
    wordsSvg.setAttribute("width", String(width));
    // a failed recompute (error) or numbers of a previous input (stale) are cleared from view
    const failed = error.show(model);
    const d = failed ? null : model.get("effect_size");
    const p = failed ? null : model.get("p_value");
    const cats = model.get("categories") || {};
    const alpha = model.get("alpha");
    title.textContent = model.get("title") || "";
    subtitle.textContent = model.get("subtitle") || "";
    const interval = failed ? null : model.get("effect_size_interval") || null;
    drawEffect(effectSvg, d, interval, without, !failed && Boolean(model.get("significant")));
    el.dataset.interval = interval && interval.low !== undefined ? `${interval.low},${interval.high}` : "";
    const stability = failed ? {} : model.get("stability") || {};
    el.dataset.verdict = stability.verdict || "";
    el.dataset.effectSize = failed ? "" : d === null || d === undefined ? "undefined" : String(d);
    el.dataset.pValue = p === null || p === undefined ? "" : String(p);
    const mark = model.get("significant") ? " *" : "";
    if (failed) {
      value.textContent = "d, p: not computed (see the error)";
    } else if (d === null || d === undefined) {
      value.replaceChildren("effect size undefined");
    } else {
      const correction = `correction for multiple tests: ${model.get("correction") || "none"}`;
      const alphaText = model.get("significant") ? `  (* p < α = ${alpha}; ${correction})` : `  (not significant at α = ${alpha}; ${correction})`;
      const ci = intervalText(interval);
      const { badge } = verdictNodes(stability);
      value.replaceChildren(
        `d = ${formatValue(d, "effect")}${ci ? ` ${ci}` : ""}`,
        ...(badge ? [" ", badge] : []),
        `   ${p === null ? "p = n/a" : formatStat("p", p, "p", alpha)}${mark}` + (model.get("p_provisional") ? " (provisional)" : ""),
        h("span", { className: "esb-alpha", text: alphaText }),
        ...(stability.story ? [h("span", { className: "esb-story", text: ` ${stability.story}.` })] : []),
      );
    }
    el.dataset.story = failed ? "" : stability.story || "";
    const method = interval && interval.method ? `. ${Math.round(100 * interval.level)}% interval of d: ${interval.method}` : "";
    how.textContent = failed ? "" : (model.get("method_text") || "") + method;
    rule.textContent = failed ? "" : verdictNodes(stability).line;
    rule.hidden = !rule.textContent;
    el.dataset.pProvisional = String(Boolean(model.get("p_provisional")));
    legend.replaceChildren(
      h("span", {}, h("span", { className: "embias-swatch esb-targ1" }), cats.targ1 || "X"),
      h("span", {}, h("span", { className: "embias-swatch esb-targ2" }), cats.targ2 || "Y"),
      h("span", { text: `bar: s(w, A, B) = ${model.get("cos_label") || "mean cos"}(w, ${cats.attr1 || "A"}) − ${model.get("cos_label") || "mean cos"}(w, ${cats.attr2 || "B"}); hover a bar for its terms` }),
    );
    const rows = failed ? [] : displayRows(model.get("per_word") || [], model.get("word_groups") || [], opened);
    // shared_extent: values another bar set draws (the sense explorer's other level), so both share one scale
    const spanned = rows.flatMap((r) => (r.kind === "group" ? [r.min, r.max] : [r.association]));
    const fit = niceDomain(rows.length ? [...spanned, ...(model.get("shared_extent") || [])] : [], { nTicks: 6 });
    lastDomain = fit.domain;
    const domain = fixedDomain ?? fit.domain;
    const ticks = fixedDomain ? niceDomain(fixedDomain, { nTicks: 6 }).ticks.filter((t) => t >= domain[0] && t <= domain[1]) : fit.ticks;
    tip.hide();
    if (rows.length) drawWords(wordsSvg, rows, domain, ticks, cats, tip, toggle, (set, word) => influence.select(set, word));
    else {
      wordsSvg.replaceChildren();
      wordsSvg.setAttribute("height", "4");
    }
    el.dataset.wordDomain = domain.join(",");
    influence.update(failed ? [] : model.get("influence") || [], d, alpha, width);
    el.dataset.influenceRevision = String(model.get("revision"));
  }
  const unlisten = listen(
    model,
    ["effect_size", "p_value", "p_provisional", "significant", "alpha", "method_text", "per_word", "word_groups", "shared_extent", "categories", "error", "stale", "refused", "title", "subtitle", "effect_size_interval", "stability", "influence", "correction"],
    update,
  );
  const unlistenBusy = listen(model, ["busy"], () => busy.set(Boolean(model.get("busy"))));
  const unlistenRevision = listen(model, ["revision"], () => {
    el.dataset.revision = String(model.get("revision"));
  });
  update();
  const unwatch = watchWidth(el, (w) => {
    width = w;
    update();
  }, { min: 200, max: 560 });
  busy.set(Boolean(model.get("busy")));
  el.append(title, subtitle, bar, help.panel, effectSvg, value, rule, how, error.node, legend, figure, influence.node);
  return () => {
    unlisten();
    unlistenBusy();
    unlistenRevision();
    unwatch();
  };
}

export default { render };
