// The text overlap check of tests/browser/conftest.py (overlapping_text): run in the page by Playwright.
(selector) => {
  // Within each SVG under `selector`: every two visible <text> elements whose boxes (as the browser draws them,
  // in its own font) overlap by more than 1 px each way, e.g. a rotated axis title over the axis labels or two
  // tick labels drawn into each other.
  const TOL = 1;
  const shown = (el) => {
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      const st = getComputedStyle(n);
      if (st.display === 'none' || st.visibility === 'hidden' || Number(st.opacity) === 0) return false;
    }
    return el.getClientRects().length > 0;
  };
  const out = [];
  for (const root of document.querySelectorAll(selector)) {
    for (const svg of root.querySelectorAll('svg')) {
      const texts = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim() && shown(t))
        .map((t) => ({ text: t.textContent.trim().slice(0, 40), r: t.getBoundingClientRect() }))
        .filter((t) => t.r.width > 0 && t.r.height > 0);
      for (let i = 0; i < texts.length; i++) {
        for (let j = i + 1; j < texts.length; j++) {
          const a = texts[i].r, b = texts[j].r;
          const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
          const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
          if (w > TOL && h > TOL) out.push({ a: texts[i].text, b: texts[j].text, overlap: [Math.round(w), Math.round(h)],
                                             svg: String(svg.className?.baseVal ?? '') });
        }
      }
    }
  }
  return out;
}
