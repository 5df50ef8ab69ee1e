// ReportViewer: an embias report (report.json) as collapsible sections. Only draws what Python sent:
// every word, label and note reaches the page through textContent; figures are the report's own SVG,
// shown as images (data URLs), so nothing in them can run. No statistic here.
import "./report_viewer.css";
import { h } from "./lib/dom.js";
import { mountRoot } from "./lib/ui.js";

const cell = (v) => (v === null || v === undefined ? "–" : typeof v === "number" ? Number(v.toPrecision(4)).toString() : String(v));

function table(columns, rows) {
  return h("table", {},
    h("thead", {}, h("tr", {}, columns.map((c) => h("th", { text: String(c) })))),
    h("tbody", {}, rows.map((r) => h("tr", {}, r.map((v) => h("td", { text: cell(v) }))))));
}

function figure(svg, alt) {
  if (!svg) return null;
  const img = h("img", { attrs: { alt } });
  img.src = "data:image/svg+xml;base64," + btoa(unescape(encodeURIComponent(svg)));
  return h("div", { className: "rv-figure" }, img);
}

function section(s, alpha) {
  const body = [h("p", { text: s.what })];
  if (s.status !== "done") {
    body.push(h("p", { className: "rv-failed", text: `${s.status}: ${s.reason ?? ""}` }));
  } else {
    body.push(table(s.table.columns, s.table.rows));
    body.push(figure(s.figure?.svg, `${s.title}, ${s.model}`));
    if (s.significance.length) {
      body.push(h("div", { className: "rv-muted", text: `Significance: Holm-Bonferroni over every p-value of the report, alpha ${alpha}` }));
      body.push(table(["test", "p", "p (Holm)", "significant"], s.significance.map((t) => [t.label, t.p, t.p_holm, t.significant ? "yes" : "no"])));
    }
    body.push(s.published.length
      ? table(["published figure", "value", "ours", "source"], s.published.map((p) => [p.label, p.value, p.ours, `${p.source.paper}, ${p.source.table}, ${p.source.row}`]))
      : h("div", { className: "rv-muted", text: "no published figure" }));
    if (s.notes.length) body.push(h("ul", {}, s.notes.map((n) => h("li", { text: n }))));
  }
  return h("details", {}, h("summary", { text: `${s.title} · ${s.model} [${s.status}]` }), ...body.filter(Boolean));
}

function draw(root, report) {
  root.replaceChildren();
  if (!report || !report.sections) {
    root.append(h("div", { className: "rv-muted", text: "no report" }));
    return;
  }
  root.append(h("div", { className: "rv-title", text: report.title }));
  root.append(h("div", { className: "rv-muted", text: `${report.quick ? "quick" : "full"} · ${report.provenance.options.sizes} · ${report.provenance.seconds.toFixed(1)} s` }));
  for (const s of report.sections) root.append(section(s, report.holm.alpha));
}

export default {
  render({ model, el }) {
    const root = mountRoot(el, "embias-report-viewer");
    const redraw = () => draw(root, model.get("report"));
    redraw();
    model.on("change:report", redraw);
    return () => model.off("change:report", redraw);
  },
};
