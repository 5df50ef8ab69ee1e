// The text contrast check of tests/browser/conftest.py (check_contrast): run in the page by Playwright.
(selector) => {
  // The WCAG 2.1 contrast ratio of every visible text element under `selector`: the computed colour (SVG
  // text: fill) composited over the effective background (the ancestors' background colours composited
  // upward until one is opaque).
  const background = (el) => {
    const layers = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      const c = parse(getComputedStyle(n).backgroundColor);
      if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
    }
    let bg = { r: 255, g: 255, b: 255, a: 1 };
    for (const c of layers.reverse()) bg = over(c, bg);
    return bg;
  };
  const visible = (el) => {
    if (!el.getClientRects().length) return false;
    const st = getComputedStyle(el);
    if (st.visibility === 'hidden' || st.display === 'none') return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const out = [];
  for (const root of document.querySelectorAll(selector)) {
    for (const el of root.querySelectorAll('*')) {
      const tag = el.tagName.toLowerCase();
      let text = '';
      if (tag === 'text') text = el.textContent;
      else if (tag === 'select') text = el.selectedOptions[0]?.textContent ?? '';
      else if (tag === 'input' || tag === 'textarea') text = el.type === 'checkbox' ? '' : el.value;
      else if (el.closest('svg')) continue;
      else text = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('');
      if (!text.trim() || !visible(el)) continue;
      const st = getComputedStyle(el);
      const raw = tag === 'text' ? st.fill : st.color;
      const fg = parse(raw);
      const bg = background(el);
      const cls = String(el.className?.baseVal ?? el.className);
      if (!fg) { out.push({ text: text.trim().slice(0, 40), cls, ratio: 0, colour: raw }); continue; }
      const shown = over({ ...fg, a: fg.a * opacity(el) }, bg);
      out.push({ text: text.trim().slice(0, 40), cls, tag,
                 ratio: Math.round(ratio(shown, bg) * 100) / 100, colour: raw,
                 background: `rgb(${Math.round(bg.r)}, ${Math.round(bg.g)}, ${Math.round(bg.b)})` });
    }
  }
  return out;
}
