// EffectSizeBars: draws the effect size d on a fixed -2..2 axis and one bar
// per target word for s(w, A, B). Every number comes from Python; this view
// only maps numbers to pixels.
import "./effect_size_bars.css";
import { h, listen, s, signed } from "./lib/dom.js";
import { linear, signedBar } from "./lib/scale.js";
import { mountRoot } from "./lib/ui.js";

const WIDTH = 460;
const AXIS = [-2, 2];
const ROW = 16;

function drawEffect(svg, d) {
  const x = linear(AXIS, [20, WIDTH - 20]);
  svg.replaceChildren();
  svg.append(s("rect", { x: 20, y: 10, width: WIDTH - 40, height: 22, fill: "#f3f3f3" }));
  for (const tick of [-2, -1, 0, 1, 2]) {
    svg.append(s("line", { x1: x(tick), x2: x(tick), y1: 6, y2: 36, stroke: tick === 0 ? "#333" : "#bbb" }));
    svg.append(s("text", { x: x(tick), y: 50, "text-anchor": "middle", class: "esb-tick" }, String(tick)));
  }
  if (d !== null && d !== undefined) {
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
  }
}

function drawWords(svg, rows) {
  const maxAbs = Math.max(1e-9, ...rows.map((r) => Math.abs(r.association)));
  const labelW = 130;
  const x = linear([-maxAbs, maxAbs], [labelW + 10, WIDTH - 10]);
  svg.setAttribute("height", String(rows.length * ROW + 8));
  svg.replaceChildren(
    s("line", { x1: x(0), x2: x(0), y1: 0, y2: rows.length * ROW + 8, stroke: "#333" }),
    ...rows.flatMap((r, i) => {
      const y = 4 + i * ROW;
      const { x: bx, width } = signedBar(x, r.association);
      return [
        s("text", { x: labelW, y: y + 11, "text-anchor": "end", class: "esb-word" }, r.word),
        s("rect", {
          x: bx.toFixed(2),
          y: y + 2,
          width: width.toFixed(2),
          height: ROW - 4,
          class: `esb-wordbar esb-${r.set}`,
          "data-word": r.word,
          "data-association": String(r.association),
        }),
      ];
    }),
  );
}

function render({ model, el }) {
  mountRoot(el, "embias-effect-size-bars");
  const title = h("div", { className: "esb-title" });
  const effectSvg = s("svg", { width: WIDTH, height: 56, class: "esb-effect" });
  const value = h("div", { className: "esb-value" });
  const how = h("div", { className: "esb-how" });
  const error = h("div", { className: "esb-error", attrs: { role: "alert" } });
  const legend = h("div", { className: "esb-legend" });
  const wordsSvg = s("svg", { width: WIDTH, height: 10, class: "esb-words" });

  function update() {
    const d = model.get("effect_size");
    const p = model.get("p_value");
    const cats = model.get("categories") || {};
    title.textContent = model.get("title") || "";
    drawEffect(effectSvg, d);
    el.dataset.effectSize = d === null ? "undefined" : String(d);
    el.dataset.pValue = p === null ? "" : String(p);
    const mark = model.get("significant") ? " *" : "";
    value.textContent =
      d === null || d === undefined
        ? "effect size undefined"
        : `d = ${signed(d, 4)}   p = ${p === null ? "n/a" : Number(p).toPrecision(4)}${mark}` +
          (model.get("p_provisional") ? " (provisional)" : "");
    el.dataset.pProvisional = String(Boolean(model.get("p_provisional")));
    how.textContent = model.get("method_text") || "";
    error.textContent = model.get("error") || "";
    error.hidden = !model.get("error");
    legend.replaceChildren(
      h("span", { className: "esb-key esb-targ1", text: cats.targ1 || "X" }),
      h("span", { className: "esb-key esb-targ2", text: cats.targ2 || "Y" }),
      h("span", {
        className: "esb-axis-note",
        text: `bar: s(w) = mean cos(w, ${cats.attr1 || "A"}) - mean cos(w, ${cats.attr2 || "B"})`,
      }),
    );
    drawWords(wordsSvg, model.get("per_word") || []);
  }
  const unlisten = listen(
    model,
    ["effect_size", "p_value", "p_provisional", "significant", "method_text", "per_word", "categories", "error", "title"],
    update,
  );
  update();
  el.append(title, effectSvg, value, how, error, legend, wordsSvg);
  return unlisten;
}

export default { render };
