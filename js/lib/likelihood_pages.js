// The paired-likelihood table in pages: drawing every row of a large study makes a page thousands of pixels
// tall (90 sense pairs: 5,357 px), so the table shows PAGE_ROWS rows at a time with Prev/Next. Paging is
// drawing only: the rows and their order come from Python (the `rows` and `order` traits), unchanged.
import { h } from "./dom.js";
import { button, group } from "./ui.js";

export const PAGE_ROWS = 50;

/**
 * One page of the display order: `{indices, page, pages, first, last, total}` (first/last 1-based, inclusive;
 * 0 and 0 when there are no rows). `page` is clamped into range, so a page past the end (after removing rows)
 * shows the last one. Indices not in `rows` (order of a newer result) are left out before paging.
 */
export function pageOf(order, nRows, page, size = PAGE_ROWS) {
  const shown = order.filter((i) => i < nRows);
  const total = shown.length;
  const pages = Math.max(1, Math.ceil(total / size));
  const p = Math.min(Math.max(0, Math.trunc(page) || 0), pages - 1);
  const indices = shown.slice(p * size, (p + 1) * size);
  return { indices, page: p, pages, first: total ? p * size + 1 : 0, last: p * size + indices.length, total };
}

/** "rows 1–50 of 90" (or "1 row", "3 rows" when everything fits on one page). */
export function pageText({ first, last, total, pages }) {
  if (pages <= 1) return `${total} row${total === 1 ? "" : "s"}`;
  return `rows ${first}–${last} of ${total}`;
}

/** The pager: Prev, Next and where we are. `onPage(delta)` moves; `show(info)` updates it (hidden on one page). */
export function createPager(onPage) {
  const prev = button("‹ Prev", () => onPage(-1), { className: "plt-prev", title: `the previous ${PAGE_ROWS} rows` });
  const next = button("Next ›", () => onPage(1), { className: "plt-next", title: `the next ${PAGE_ROWS} rows` });
  const text = h("span", { className: "plt-page-text", attrs: { "aria-live": "polite" } });
  const node = h("div", { className: "plt-pager", attrs: { role: "navigation", "aria-label": "table pages" } },
    group(prev, next), text);
  function show(info) {
    text.textContent = pageText(info);
    prev.disabled = info.page === 0;
    next.disabled = info.page >= info.pages - 1;
    node.hidden = info.pages <= 1;
    node.dataset.page = String(info.page);
  }
  return { node, show };
}
