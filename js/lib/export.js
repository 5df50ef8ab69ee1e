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
import { h, SVG_NS } from "./dom.js";

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
  "font-family", "font-size", "font-weight", "text-anchor", "dominant-baseline", "visibility",
];

/** The first non-transparent background colour of `node` or its ancestors. */
export function effectiveBackground(node) {
  for (let n = node; n && n.nodeType === 1; n = n.parentElement) {
    const bg = getComputedStyle(n).backgroundColor;
    if (bg && bg !== "transparent" && !/rgba\([^)]*,\s*0\)$/.test(bg)) return bg;
  }
  return "#ffffff";
}

function inlineStyles(source, clone) {
  const cs = getComputedStyle(source);
  const style = STYLE_PROPS.map((p) => `${p}:${cs.getPropertyValue(p)}`).join(";");
  clone.setAttribute("style", style);
  clone.removeAttribute("class");
  const a = source.children;
  const b = clone.children;
  for (let i = 0; i < a.length; i++) inlineStyles(a[i], b[i]);
}

/** One standalone SVG document stacking `svgs` vertically, theme colours inlined. */
export function svgMarkup(svgs, { title = "" } = {}) {
  const shown = svgs.filter((s) => s && s.getBBox && s.isConnected);
  const width = Math.max(1, ...shown.map((s) => Number(s.getAttribute("width")) || s.getBoundingClientRect().width));
  const root = document.createElementNS(SVG_NS, "svg");
  root.setAttribute("xmlns", SVG_NS);
  const bg = effectiveBackground(shown[0] ?? document.body);
  const titleHeight = title ? 22 : 0;
  let y = titleHeight;
  const parts = [];
  for (const svg of shown) {
    const height = Number(svg.getAttribute("height")) || svg.getBoundingClientRect().height;
    const clone = svg.cloneNode(true);
    inlineStyles(svg, clone);
    const g = document.createElementNS(SVG_NS, "g");
    g.setAttribute("transform", `translate(0, ${y})`);
    g.append(...clone.childNodes);
    parts.push(g);
    y += height;
  }
  root.setAttribute("width", String(width));
  root.setAttribute("height", String(y));
  root.setAttribute("viewBox", `0 0 ${width} ${y}`);
  const rect = document.createElementNS(SVG_NS, "rect");
  for (const [k, v] of Object.entries({ x: 0, y: 0, width, height: y, fill: bg })) rect.setAttribute(k, String(v));
  root.append(rect);
  if (title) {
    const t = document.createElementNS(SVG_NS, "text");
    const cs = getComputedStyle(shown[0] ?? document.body);
    t.setAttribute("x", "4");
    t.setAttribute("y", "15");
    t.setAttribute("style", `fill:${cs.color};font-family:${cs.fontFamily};font-size:13px;font-weight:600`);
    t.textContent = title;
    root.append(t);
  }
  root.append(...parts);
  return { text: new XMLSerializer().serializeToString(root), width, height: y };
}

/** Render SVG markup to a PNG blob at `scale` x resolution. */
export function svgToPng({ text, width, height }, scale = 2) {
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
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("PNG export failed"))), "image/png");
    };
    img.onerror = () => {
      URL.revokeObjectURL(url);
      reject(new Error("PNG export failed: the figure could not be rendered"));
    };
    img.src = url;
  });
}

/**
 * CSV / SVG / PNG buttons. `stem()` gives the file name stem; `csv()` the CSV
 * text (or null to leave the button out); `svgs()` the SVG elements of the figure;
 * `title()` an optional title drawn on the figure. Extra [label, onClick, title] entries may follow.
 */
export function exportButtons({ stem, csv, svgs, title = () => "", extra = [] }) {
  const make = (label, kind, onClick, tip) =>
    h("button", {
      className: `embias-button embias-export embias-export-${kind}`,
      text: label,
      title: tip,
      dataset: { export: kind },
      attrs: { type: "button" },
      on: { click: onClick },
    });
  const buttons = [];
  if (csv) buttons.push(make("CSV", "csv", () => downloadText(csv(), `${stem()}.csv`, "text/csv"), "download the result table as CSV"));
  if (svgs) {
    buttons.push(
      make("SVG", "svg", () => downloadText(svgMarkup(svgs(), { title: title() }).text, `${stem()}.svg`, "image/svg+xml"), "download the figure as SVG"),
      make("PNG", "png", async () => downloadBlob(await svgToPng(svgMarkup(svgs(), { title: title() })), `${stem()}.png`), "download the figure as PNG"),
    );
  }
  for (const [label, onClick, tip, kind] of extra) buttons.push(make(label, kind ?? label.toLowerCase(), onClick, tip));
  return h("span", { className: "embias-group embias-exports" }, ...buttons);
}
