// ReportViewer: an embias report as the blocks report.html draws (Python sends them in the `page` trait,
// built by embias_widgets/analysis/publish/page.py from report.json), so the two show the same thing: the
// findings first, agreement, models side by side, then each section collapsible. Numbers through
// lib/format.js, text through textContent, figures as sanitised inline SVG whose text takes the theme's
// colour. No statistic here.
import "./report_viewer.css";
import { h } from "./lib/dom.js";
import { block } from "./lib/report_blocks.js";
import { mountRoot } from "./lib/ui.js";

function draw(root, blocks) {
  root.replaceChildren();
  if (!Array.isArray(blocks) || !blocks.length) {
    root.append(h("div", { className: "rv-muted", text: "no report" }));
    return;
  }
  for (const b of blocks) root.append(block(b));
}

export default {
  render({ model, el }) {
    const root = mountRoot(el, "embias-report-viewer");
    const redraw = () => draw(root, model.get("page"));
    redraw();
    model.on("change:page", redraw);
    return () => model.off("change:page", redraw);
  },
};
