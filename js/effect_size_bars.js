// EffectSizeBars: the effect size d on a fixed -2..2 axis (values beyond it
// are clipped with an arrow and their value), p with its significance mark and
// alpha, and one bar per target word for s(w, A, B) on its own axis, with the
// two cosine terms on hover. Every number comes from Python; this view only
// maps numbers to pixels and formats them.
import "./effect_size_bars.css";
import { h, listen, s, signed } from "./lib/dom.js";
import { exportButtons, fileStem, toCSV } from "./lib/export.js";
import { estimateWidth } from "./lib/labels.js";
import { clipped, linear, niceDomain, signedBar, tickLabel } from "./lib/scale.js";
import { busyIndicator, errorState, helpButton, mountRoot, toolbar } from "./lib/ui.js";

const WIDTH = 560;
const AXIS = [-2, 2];
const ROW = 18;
const LABEL_W = 150;
const VALUE_W = 64;

function arrow(x, y, dir) {
  // a small triangle pointing out of the axis at x (dir = +1 right, -1 left)
  const pts = [[x, y - 6], [x + 7 * dir, y], [x, y + 6]].map((p) => p.join(",")).join(" ");
  return s("polygon", { points: pts, class: "esb-arrow" });
}

function drawEffect(svg, d) {
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
  const side = clipped(d, AXIS);
  if (side) {
    const edge = side === "high" ? right : left;
    const dir = side === "high" ? 1 : -1;
    svg.append(
      arrow(edge + 2 * dir, 21, dir),
      s("text", { x: edge + 10 * dir, y: 8, "text-anchor": side === "high" ? "end" : "start", class: "esb-clip", "data-clipped": side }, `d = ${signed(d, 2)} (beyond the axis)`),
    );
  }
}

function shortLabel(text, width) {
  if (estimateWidth(text, 11) <= width) return text;
  let out = String(text);
  while (out.length > 1 && estimateWidth(`${out}…`, 11) > width) out = out.slice(0, -1);
  return `${out}…`;
}

function drawWords(svg, rows, domain, ticks, cats, tip) {
  const plotLeft = LABEL_W + 10;
  const plotRight = WIDTH - VALUE_W - 6;
  const x = linear(domain, [plotLeft, plotRight]);
  const top = 4;
  const axisY = top + rows.length * ROW + 4;
  const height = axisY + 34;
  svg.setAttribute("height", String(height));
  svg.replaceChildren();
  for (const t of ticks) {
    svg.append(
      s("line", { x1: x(t), x2: x(t), y1: top, y2: axisY, class: t === 0 ? "esb-zero" : "esb-gridline" }),
      s("text", { x: x(t), y: axisY + 13, "text-anchor": "middle", class: "esb-tick" }, tickLabel(t)),
    );
  }
  svg.append(
    s("text", { x: (plotLeft + plotRight) / 2, y: axisY + 28, "text-anchor": "middle", class: "esb-axis-title" },
      `s(w, A, B): ${rowsLabel(cats)}`),
  );
  rows.forEach((r, i) => {
    const y = top + i * ROW;
    const { x: bx, width } = signedBar(x, r.association);
    const bar = s("rect", {
      x: bx.toFixed(2),
      y: y + 3,
      width: Math.max(0.5, width).toFixed(2),
      height: ROW - 6,
      class: `esb-wordbar esb-${r.set}`,
      "data-word": r.word,
      "data-association": String(r.association),
    });
    const label = s("text", { x: LABEL_W, y: y + 13, "text-anchor": "end", class: "esb-word", "data-word": r.word }, shortLabel(r.word, LABEL_W - 4));
    const number = s("text", { x: WIDTH - 2, y: y + 13, "text-anchor": "end", class: "esb-num" }, signed(r.association, 3));
    const hit = [bar, label, number];
    for (const node of hit) {
      node.addEventListener("mouseenter", (e) => tip.show(e, r));
      node.addEventListener("mousemove", (e) => tip.move(e));
      node.addEventListener("mouseleave", () => tip.hide());
    }
    svg.append(bar, label, number);
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
      const lines = [`${r.word} (${r.category})`, `s(w, A, B) = ${signed(r.association, 4)}`];
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
  const error = errorState(el);
  const busy = busyIndicator(el);
  const legend = h("div", { className: "embias-legend esb-legend" });
  const figure = h("div", { className: "esb-figure" });
  const wordsSvg = s("svg", { width: WIDTH, height: 10, class: "esb-words", role: "img" });
  figure.append(wordsSvg);
  const tip = tooltip(figure, model);
  let fixedDomain = null;
  let lastDomain = null;

  const fixed = h("input", { type: "checkbox", className: "esb-fixed", attrs: { "aria-label": "keep the per-word scale fixed" } });
  fixed.addEventListener("change", () => {
    fixedDomain = fixed.checked ? lastDomain : null;
    update();
  });
  const stem = () => fileStem(model.get("test_name") || model.get("title") || "test", model.get("model_name") || "model");
  const exportsNode = exportButtons({
    stem,
    title: () => `${model.get("title")} ${model.get("subtitle")}`.trim(),
    csv: () => {
      const d = model.get("effect_size");
      const p = model.get("p_value");
      const rows = (model.get("per_word") || []).map((r) => [
        model.get("test_name"), model.get("model_name"), r.set, r.category, r.word, r.association, r.cos_a, r.cos_b, d, p,
      ]);
      return toCSV(["test", "model", "set", "category", "word", "association", "cos_a", "cos_b", "effect_size", "p_value"], rows);
    },
    svgs: () => [effectSvg, wordsSvg],
  });
  const help = helpButton(["d", "p", "significance", "sw", "small_sets"]);
  const bar = toolbar(
    h("label", { className: "embias-check", title: "keep the per-word axis as it is now across edits" }, fixed, "fixed scale"),
    exportsNode,
    busy.node,
    h("span", { className: "embias-spacer" }),
    help.button,
  );

  function update() {
    // a failed recompute (error) or numbers of a previous input (stale) are cleared from view
    const failed = error.show(model);
    const d = failed ? null : model.get("effect_size");
    const p = failed ? null : model.get("p_value");
    const cats = model.get("categories") || {};
    const alpha = model.get("alpha");
    title.textContent = model.get("title") || "";
    subtitle.textContent = model.get("subtitle") || "";
    drawEffect(effectSvg, d);
    el.dataset.effectSize = failed ? "" : d === null || d === undefined ? "undefined" : String(d);
    el.dataset.pValue = p === null || p === undefined ? "" : String(p);
    const mark = model.get("significant") ? " *" : "";
    if (failed) {
      value.textContent = "d, p: not computed (see the error)";
    } else if (d === null || d === undefined) {
      value.replaceChildren("effect size undefined");
    } else {
      const alphaText = model.get("significant") ? `  (* p < α = ${alpha})` : `  (not significant at α = ${alpha})`;
      value.replaceChildren(
        `d = ${signed(d, 4)}   p = ${p === null ? "n/a" : Number(p).toPrecision(4)}${mark}` +
          (model.get("p_provisional") ? " (provisional)" : ""),
        h("span", { className: "esb-alpha", text: alphaText }),
      );
    }
    how.textContent = failed ? "" : model.get("method_text") || "";
    el.dataset.pProvisional = String(Boolean(model.get("p_provisional")));
    legend.replaceChildren(
      h("span", {}, h("span", { className: "embias-swatch esb-targ1" }), cats.targ1 || "X"),
      h("span", {}, h("span", { className: "embias-swatch esb-targ2" }), cats.targ2 || "Y"),
      h("span", { text: `bar: s(w, A, B) = ${model.get("cos_label") || "mean cos"}(w, ${cats.attr1 || "A"}) − ${model.get("cos_label") || "mean cos"}(w, ${cats.attr2 || "B"}); hover a bar for its terms` }),
    );
    const rows = failed ? [] : model.get("per_word") || [];
    const fit = niceDomain(rows.map((r) => r.association), { nTicks: 6 });
    lastDomain = fit.domain;
    const domain = fixedDomain ?? fit.domain;
    const ticks = fixedDomain ? niceDomain(fixedDomain, { nTicks: 6 }).ticks.filter((t) => t >= domain[0] && t <= domain[1]) : fit.ticks;
    tip.hide();
    if (rows.length) drawWords(wordsSvg, rows, domain, ticks, cats, tip);
    else {
      wordsSvg.replaceChildren();
      wordsSvg.setAttribute("height", "4");
    }
    el.dataset.wordDomain = domain.join(",");
  }
  const unlisten = listen(
    model,
    ["effect_size", "p_value", "p_provisional", "significant", "alpha", "method_text", "per_word", "categories", "error", "stale", "refused", "title", "subtitle"],
    update,
  );
  const unlistenBusy = listen(model, ["busy"], () => busy.set(Boolean(model.get("busy"))));
  const unlistenRevision = listen(model, ["revision"], () => {
    el.dataset.revision = String(model.get("revision"));
  });
  update();
  busy.set(Boolean(model.get("busy")));
  el.append(title, subtitle, bar, help.panel, effectSvg, value, how, error.node, legend, figure);
  return () => {
    unlisten();
    unlistenBusy();
    unlistenRevision();
  };
}

export default { render };
