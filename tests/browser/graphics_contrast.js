// The graphics contrast check of tests/browser/conftest.py (graphics_contrast): run in the page by Playwright.
(selector) => {
  // Every visible SVG shape under `selector` that draws data (bars, dots, whiskers, swatches, rules, leaders:
  // not grid lines, a scale's background track, backgrounds or invisible hit areas): its fill and its outline, each composited over the effective
  // background as the page draws them (fill-opacity or stroke-opacity times every ancestor's opacity), and the
  // WCAG 2.1 contrast ratio of each against that background. A shape reads when its fill or its outline (at
  // least 1 px wide) reaches the ratio asked (WCAG 1.4.11: 3:1 for the parts of a graphic needed to read it).
  const background = (el) => {
    const layers = [];
    for (let n = el.closest('svg')?.parentElement; n && n.nodeType === 1; n = n.parentElement) {
      const c = parse(getComputedStyle(n).backgroundColor);
      if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
    }
    let bg = { r: 255, g: 255, b: 255, a: 1 };
    for (const c of layers.reverse()) bg = over(c, bg);
    return bg;
  };
  // decorative, exempt (WCAG 1.4.11): grid lines, a scale's background track, backgrounds, hidden helpers
  const decorative = (el) => el.closest('.role-axis-grid, .background, [aria-hidden="true"], defs, clipPath, mask, '
    + 'pattern, marker, [data-decorative]') !== null
    || /(^|[\s-])(background|foreground|grid|gridline|track)(\s|$)/.test(el.getAttribute('class') ?? '');
  const name = (n) => `${n.tagName.toLowerCase()}.${String(n.className?.baseVal ?? n.className).trim().split(/\s+/).join('.')}`
    + (n.parentElement ? ` in ${n.parentElement.tagName.toLowerCase()}.${String(n.parentElement.className?.baseVal ?? '').trim().split(/\s+/).join('.')}` : '');
  const out = [];
  for (const root of document.querySelectorAll(selector)) {
    for (const el of root.querySelectorAll('svg rect, svg path, svg circle, svg ellipse, svg line, svg polyline, svg polygon')) {
      if (decorative(el) || !el.getClientRects().length) continue;
      const st = getComputedStyle(el);
      if (st.visibility === 'hidden' || st.display === 'none') continue;
      const box = el.getBBox();
      const o = opacity(el);
      if (o === 0) continue;
      const bg = background(el);
      const fill = parse(st.fill), stroke = parse(st.stroke);
      const width = parseFloat(st.strokeWidth) || 0;
      const fillAlpha = fill ? fill.a * Number(st.fillOpacity) * o : 0;
      const strokeAlpha = stroke && width > 0 ? stroke.a * Number(st.strokeOpacity) * o : 0;
      const area = box.width > 0 && box.height > 0 && el.tagName !== 'line' && el.tagName !== 'polyline';
      if ((!area || fillAlpha === 0) && strokeAlpha === 0) continue;  // draws nothing (a hit area, an empty path)
      if (fill === undefined || stroke === undefined) { out.push({ shape: name(el), ratio: 0, fill: st.fill, stroke: st.stroke }); continue; }
      const fillRatio = area && fillAlpha > 0 ? ratio(over({ ...fill, a: fillAlpha }, bg), bg) : 0;
      const strokeRatio = strokeAlpha > 0 && width >= 1 ? ratio(over({ ...stroke, a: strokeAlpha }, bg), bg) : 0;
      out.push({ shape: name(el), ratio: Math.round(Math.max(fillRatio, strokeRatio) * 100) / 100,
                 fillRatio: Math.round(fillRatio * 100) / 100, strokeRatio: Math.round(strokeRatio * 100) / 100,
                 fill: st.fill, fillOpacity: Math.round(fillAlpha * 1000) / 1000, stroke: st.stroke,
                 background: `rgb(${Math.round(bg.r)}, ${Math.round(bg.g)}, ${Math.round(bg.b)})` });
    }
  }
  return out;
}
