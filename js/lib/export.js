// Export helpers shared by every widget: the result table as CSV, the figure
// as SVG or PNG, any text as a file, with names after the test and the model.
//
//   import { exportButtons, fileStem, toCSV } from "./lib/export.js";
//   const buttons = exportButtons({
//     stem: () => fileStem("weat6", "glove-6b-50d"),          // "weat6_glove-6b-50d"
//     csv: () => toCSV(["word", "s"], rows.map((r) => [r.word, r.s])),
//     svgs: () => [effectSvg, wordsSvg],                     // stacked into one figure
//   });                                                      // -> <span> with CSV, SVG, PNG buttons
//
// CSV cells are the numbers Python sent, written with String() (the shortest
// text that reads back as the same double), so a parsed export equals Python's
// values. SVG export inlines the computed theme colours and fonts (CSS
// variables do not travel with a file) and paints the effective background.
// Text cells that a spreadsheet would run as a formula (=, +, -, @ first) get a
// leading ' (safeCell, OWASP's CSV-injection advice); numbers never do.
// toCSV, fileStem, csvCell and safeCell are pure and unit-tested (js/tests/export.test.js).
import { h, s, SVG_NS } from "./dom.js";
import { PNG_SCALE, PPI, readableFontSize, withPpi } from "./figure_frame.js";

/** A file-name stem from parts: lower-risk characters only, joined by "_". */
export function fileStem(...parts) {
  const clean = parts
    .filter((p) => p !== null && p !== undefined && String(p).trim() !== "")
    .map((p) =>
      String(p)
        .trim()
        .replace(/[^\p{L}\p{N}._-]+/gu, "-")
        .replace(/-+/g, "-")
        .replace(/^[-.]+|[-.]+$/g, ""),
    )
    .filter((p) => p.length > 0);
  return clean.length ? clean.join("_") : "embias";
}

const FORMULA_START = /^[=+\-@\t\r]/;
const FORMULA_AFTER_BLANKS = /^[ \n\t\r\v\f]*[=+\-@]/;
const NUMBER_TEXT = /^[ \n\t\r\v\f]*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \n\t\r\v\f]*$/;

/**
 * True when a spreadsheet could read `text` as a formula (it starts with = + - @, a tab or a carriage
 * return, or = + - @ after blanks, and is not a plain number such as "-0.5"), or `text` already looks
 * guarded ("'" then such text). Same rule as embias_widgets/stimuli/spreadsheet_safe.py `needs_guard`.
 */
export function needsGuard(text) {
  if (FORMULA_START.test(text) || FORMULA_AFTER_BLANKS.test(text)) return !NUMBER_TEXT.test(text);
  return text.startsWith("'") && needsGuard(text.slice(1));
}

/** A text cell safe to open in a spreadsheet: a leading "'" where it could run as a formula (OWASP). */
export function safeCell(value) {
  return typeof value === "string" && needsGuard(value) ? `'${value}` : value;
}

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, quote, or line break. Text that a spreadsheet
 * would run as a formula gets a leading "'" (safeCell); numbers are written as they are.
 */
export function csvCell(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" && !Number.isFinite(value)) return Number.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf";
  const text = String(safeCell(value));
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** CSV text (header + rows, CRLF line ends as RFC 4180). */
export function toCSV(columns, rows) {
  return [columns, ...rows].map((row) => row.map(csvCell).join(",")).join("\r\n") + "\r\n";
}

/** Offer `blob` as a download called `name`. */
export function downloadBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = h("a", { href: url, download: name });
  a.style.display = "none";
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 5_000);
}

export function downloadText(text, name, type = "text/plain") {
  downloadBlob(new Blob([text], { type: `${type};charset=utf-8` }), name);
}

const STYLE_PROPS = [
  "fill", "fill-opacity", "stroke", "stroke-width", "stroke-dasharray", "stroke-opacity", "opacity",
  "font-family", "font-size", "font-weight", "font-style", "text-anchor", "dominant-baseline", "visibility",
  "paint-order",
];
const PAD = 12;
const MIN_WIDTH = 360;

/** The first non-transparent background colour of `node` or its ancestors. */
export function effectiveBackground(node) {
  for (let n = node; n && n.nodeType === 1; n = n.parentElement) {
    const bg = getComputedStyle(n).backgroundColor;
    if (bg && bg !== "transparent" && !/rgba\([^)]*,\s*0\)$/.test(bg)) return bg;
  }
  return "#ffffff";
}

/** Replace every element's classes under `root` by its computed style (CSS variables do not travel with a file);
 * text smaller than 11 px is raised to 11 px (the report's figure style: readable labels). */
function inlineAll(root) {
  const nodes = [root, ...root.querySelectorAll("*")];
  const styles = nodes.map((n) => {
    const cs = getComputedStyle(n);
    const value = (p) => (p === "font-size" && n.localName === "text" ? readableFontSize(cs.getPropertyValue(p)) : cs.getPropertyValue(p));
    return STYLE_PROPS.map((p) => `${p}:${value(p)}`).join(";");
  });
  nodes.forEach((n, i) => {
    n.setAttribute("style", styles[i]);
    n.removeAttribute("class");
  });
}

/** Greedy word wrap of `text` into lines no wider than `width`, measured by `measure(text)`. */
export function wrapWords(text, width, measure) {
  const lines = [];
  let line = "";
  for (const word of String(text).split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (line && measure(next) > width) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

/** Text lines (wrapped to `width`) of class `cls`, from `y` down; returns the y below them. */
function textBlock(root, text, cls, y, width, lineHeight) {
  const probe = s("text", { class: cls, x: PAD, y });
  root.append(probe);
  const measure = (t) => {
    probe.textContent = t;
    return probe.getComputedTextLength();
  };
  const lines = wrapWords(text, width, measure);
  probe.remove();
  for (const line of lines) {
    y += lineHeight;
    root.append(s("text", { class: cls, x: PAD, y }, line));
  }
  return y;
}

/** A legend row (swatch + label per entry, wrapping to `width`) from `y`; returns the y below it. */
function legendBlock(root, entries, y, width) {
  if (!entries.length) return y;
  let x = PAD;
  y += 8;
  for (const [label, swatchClass] of entries) {
    const text = s("text", { class: "embias-fig-legend", x: x + 16, y: y + 11 }, label);
    root.append(text);
    const w = 16 + text.getComputedTextLength() + 14;
    if (x > PAD && x + w > PAD + width) {
      x = PAD;
      y += 18;
      text.setAttribute("x", String(x + 16));
      text.setAttribute("y", String(y + 11));
    }
    if (swatchClass === "embias-fig-ref") root.append(s("line", { class: "embias-fig-ref", x1: x + 5.5, x2: x + 5.5, y1: y, y2: y + 13 }));
    else if (/^(#|rgb|hsl)/.test(swatchClass ?? "")) root.append(s("rect", { class: "embias-fig-swatch", fill: swatchClass, x, y: y + 1, width: 11, height: 11 }));
    else if (swatchClass) root.append(s("rect", { class: `embias-fig-swatch ${swatchClass}`, x, y: y + 1, width: 11, height: 11 }));
    x += w;
  }
  return y + 18;
}

/**
 * One standalone figure from the widget's SVG charts: title, subtitle, the headline numbers (`lines`), the
 * charts stacked, a legend ([label, swatch class or colour] entries), on a light background unless `theme` is "keep".
 * Numbers and labels are passed in from the result the widget holds; this only lays them out. The viewBox
 * covers everything drawn (its bounding box), so no text lies outside it.
 */
export function svgMarkup(svgs, { title = "", subtitle = "", lines = [], legend = [], theme = "light" } = {}) {
  const shown = svgs.filter((x) => x && x.isConnected);
  const widget = shown[0]?.closest(".embias-widget");
  // a stage off screen with the widget's classes and palette, so the widget's CSS rules style the clones
  const stage = h("div", { className: widget ? widget.className : "embias-widget" });
  stage.setAttribute("style", widget?.getAttribute("style") ?? "");
  stage.classList.add("embias-figure-stage");
  if (theme !== "keep") stage.classList.add("embias-figure-light");
  const root = document.createElementNS(SVG_NS, "svg");
  root.setAttribute("xmlns", SVG_NS);
  stage.append(root);
  document.body.append(stage);
  try {
    const chartWidth = Math.max(0, ...shown.map((x) => Number(x.getAttribute("width")) || x.getBoundingClientRect().width));
    const width = Math.max(chartWidth, MIN_WIDTH);
    let y = PAD - 4;
    if (title) y = textBlock(root, title, "embias-fig-title", y, width - 2 * PAD, 18);
    if (subtitle) y = textBlock(root, subtitle, "embias-fig-subtitle", y, width - 2 * PAD, 16);
    for (const line of lines.filter(Boolean)) y = textBlock(root, line, "embias-fig-line", y, width - 2 * PAD, 16);
    y += 8;
    for (const svg of shown) {
      const height = Number(svg.getAttribute("height")) || svg.getBoundingClientRect().height;
      const clone = svg.cloneNode(true);
      const g = document.createElementNS(SVG_NS, "g");
      g.setAttribute("transform", `translate(0, ${y})`);
      for (const cls of svg.classList) g.classList.add(cls);  // rules such as svg.esb-words text keep matching
      g.append(...clone.childNodes);
      root.append(g);
      y += height;
    }
    y = legendBlock(root, legend, y, width - 2 * PAD);
    inlineAll(root);
    const bg = theme === "keep" ? effectiveBackground(widget ?? document.body) : getComputedStyle(stage).backgroundColor;
    const box = root.getBBox();
    const x0 = Math.floor(Math.min(0, box.x - 4));
    const y0 = Math.floor(Math.min(0, box.y - 4));
    const x1 = Math.ceil(Math.max(width, box.x + box.width + PAD));
    const y1 = Math.ceil(Math.max(y, box.y + box.height) + PAD);
    const [w, hgt] = [x1 - x0, y1 - y0];
    root.insertBefore(s("rect", { x: x0, y: y0, width: w, height: hgt, fill: bg }), root.firstChild);
    root.setAttribute("width", String(w));
    root.setAttribute("height", String(hgt));
    root.setAttribute("viewBox", `${x0} ${y0} ${w} ${hgt}`);
    root.removeAttribute("style");
    return { text: new XMLSerializer().serializeToString(root), width: w, height: hgt };
  } finally {
    stage.remove();
  }
}

/** Render SVG markup to a PNG blob at `scale` x resolution (default 300/96: 300 dpi, stated in its pHYs chunk). */
export function svgToPng({ text, width, height }, scale = PNG_SCALE) {
  return new Promise((resolve, reject) => {
    const img = new Image();
    const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml;charset=utf-8" }));
    img.onload = () => {
      const canvas = document.createElement("canvas");
      canvas.width = Math.ceil(width * scale);
      canvas.height = Math.ceil(height * scale);
      const ctx = canvas.getContext("2d");
      ctx.scale(scale, scale);
      ctx.drawImage(img, 0, 0, width, height);
      URL.revokeObjectURL(url);
      canvas.toBlob((blob) => {
        if (!blob) return reject(new Error("PNG export failed"));
        const ppi = Math.round(96 * scale);
        blob.arrayBuffer().then((buf) => resolve(new Blob([withPpi(new Uint8Array(buf), ppi)], { type: "image/png" })), reject);
      }, "image/png");
    };
    img.onerror = () => {
      URL.revokeObjectURL(url);
      reject(new Error("PNG export failed: the figure could not be rendered"));
    };
    img.src = url;
  });
}

/**
 * CSV / SVG / PNG buttons. `stem()` gives the file name stem; `csv()` the CSV text (or null to leave the
 * button out); `svgs()` the SVG elements of the figure; `figure()` what the standalone figure shows besides
 * them ({title, subtitle, lines, legend}: see svgMarkup), or `title()` alone. A "theme" box keeps the
 * page's colours (default: a light figure). Extra [label, onClick, title] entries may follow.
 */
export function exportButtons({ stem, csv, svgs, title = () => "", figure = null, extra = [] }) {
  const make = (label, kind, onClick, tip) =>
    h("button", {
      className: `embias-button embias-export embias-export-${kind}`,
      text: label,
      title: tip,
      dataset: { export: kind },
      attrs: { type: "button" },
      on: { click: onClick },
    });
  const keep = h("input", { type: "checkbox", className: "embias-export-keep-theme", attrs: { "aria-label": "export in the page's theme colours" } });
  const spec = () => ({ ...(figure ? figure() : { title: title() }), theme: keep.checked ? "keep" : "light" });
  const buttons = [];
  if (csv) buttons.push(make("CSV", "csv", () => downloadText(csv(), `${stem()}.csv`, "text/csv"), "download the result table as CSV"));
  if (svgs) {
    buttons.push(
      make("SVG", "svg", () => downloadText(svgMarkup(svgs(), spec()).text, `${stem()}.svg`, "image/svg+xml"), "download the figure as SVG (title, numbers, legend)"),
      make("PNG", "png", async () => downloadBlob(await svgToPng(svgMarkup(svgs(), spec())), `${stem()}.png`), `download the figure as PNG at ${PPI} dpi`),
    );
  }
  for (const [label, onClick, tip, kind] of extra) buttons.push(make(label, kind ?? label.toLowerCase(), onClick, tip));
  const group = h("span", { className: "embias-group embias-exports" }, ...buttons);
  if (!svgs) return group;
  const keepLabel = h("label", { className: "embias-check embias-export-theme", title: "export with the page's theme colours instead of a light figure" }, keep, "theme");
  return h("span", { className: "embias-export-row" }, group, keepLabel);
}
