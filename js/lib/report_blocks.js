// The blocks of a report page (embias_widgets/analysis/publish/page.py) as DOM: the same blocks report.html
// draws, so the viewer shows what the page shows. Numbers are written by lib/format.js (the twin of
// embias_widgets/formatting.py); every text reaches the page through textContent; user text (between the
// isolates U+2068 and U+2069) sits in a <bdi>, as report.html writes it.
import { h } from "./dom.js";
import { formatTable } from "./format.js";
import { safeSvg } from "./safe_svg.js";

const FSI = "\u2068";
const PDI = "\u2069";

/** Text as nodes: plain text, and each FSI ... PDI span as a <bdi>. */
export function textNodes(text) {
  const out = [];
  const parts = String(text ?? "").split(FSI);
  out.push(document.createTextNode(parts[0]));
  for (const part of parts.slice(1)) {
    const end = part.indexOf(PDI);
    const inner = end < 0 ? part : part.slice(0, end);
    out.push(h("bdi", { text: inner }));
    if (end >= 0) out.push(document.createTextNode(part.slice(end + 1)));
  }
  return out;
}

function withText(tag, props, text) {
  return h(tag, props, ...textNodes(text));
}

function table(b) {
  const numeric = (v) => (typeof v === "number" || (v && typeof v === "object")) && typeof v !== "boolean";
  return h("div", { className: "rv-scroll" }, h("table", {},
    h("thead", {}, h("tr", {}, b.columns.map((c) => withText("th", {}, c)))),
    h("tbody", {}, formatTable(b.rows, b.kinds, b.alphas ?? null).map((texts, j) => h("tr", {}, b.rows[j].map((v, i) =>
      withText("td", { className: numeric(v) ? "rv-num" : "" }, texts[i])))))));
}

function figure(b) {
  const svg = safeSvg(b.svg);
  if (!svg) return h("p", { className: "rv-muted", text: "figure not shown (not an SVG)" });
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", b.alt ?? "");
  return h("div", { className: "rv-figure rv-scroll" }, svg);
}

/** One block as a DOM node. */
export function block(b) {
  switch (b.t) {
    case "h": return withText(`h${Math.min(6, Math.max(1, b.level + 1))}`, { className: `rv-h${b.level}` }, b.text);
    case "p": return withText("p", { className: b.cls ? `rv-${b.cls}` : "" }, b.text);
    case "ul": return h("ul", { className: b.cls ? `rv-${b.cls}` : "" }, b.items.map((i) => withText("li", {}, i)));
    case "table": return table(b);
    case "figure": return figure(b);
    case "details": {
      const summary = withText("summary", {}, b.summary + " ");
      summary.append(h("span", { className: `rv-${b.status}`, text: `[${b.status}]` }));
      const node = h("details", {}, summary, ...b.children.map(block));
      node.open = Boolean(b.open);
      return node;
    }
    default: return h("p", { className: "rv-muted", text: `(unknown block ${String(b.t)})` });
  }
}
