// The layout check of tests/browser/conftest.py (clipped_text): run in the page by Playwright.
(selector) => {
  const TOL = 1;
  const inside = (r, b) => r.left >= b.left - TOL && r.right <= b.right + TOL && r.top >= b.top - TOL && r.bottom <= b.bottom + TOL;
  const clientBox = (n) => {
    const c = n.getBoundingClientRect();
    const left = c.left + n.clientLeft, top = c.top + n.clientTop;
    return { left, top, right: left + n.clientWidth, bottom: top + n.clientHeight };
  };
  const scrollArea = (n) => {
    const c = n.getBoundingClientRect();
    const left = c.left + n.clientLeft - n.scrollLeft, top = c.top + n.clientTop - n.scrollTop;
    return { left, top, right: left + Math.max(n.scrollWidth, n.clientWidth), bottom: top + Math.max(n.scrollHeight, n.clientHeight) };
  };
  const name = (n) => `${n.tagName.toLowerCase()}.${String(n.className?.baseVal ?? n.className).trim().split(/\s+/).join('.')}`;
  const shown = (el) => {
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      const st = getComputedStyle(n);
      if (st.display === 'none' || st.visibility === 'hidden' || n.hidden) return false;
      if (n.classList?.contains('embias-visually-hidden')) return false;
    }
    return el.getClientRects().length > 0;
  };
  const canvas = document.createElement('canvas').getContext('2d');
  const out = { roots: [] };
  for (const root of document.querySelectorAll(selector)) {
    const rr = root.getBoundingClientRect();
    // what the page shows of the root, horizontally: cut by every outer ancestor that clips or scrolls
    let box = { left: rr.left, right: rr.right, top: rr.top, bottom: rr.bottom };
    for (let n = root.parentElement; n && n !== document.body; n = n.parentElement) {
      const st = getComputedStyle(n);
      if (st.overflowX !== 'visible' && !/^(inline|contents)$/.test(st.display)) {
        const c = clientBox(n);
        box.left = Math.max(box.left, c.left);
        box.right = Math.min(box.right, c.right);
      }
    }
    box.left = Math.max(box.left, 0);
    box.right = Math.min(box.right, document.documentElement.clientWidth);
    const items = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const el = t.parentElement;
      if (!t.textContent.trim() || !el || el.closest('option, style, script, title')) continue;
      if (el.closest('svg') && !el.closest('text')) continue;
      const svgText = el.closest('text');
      let rect;
      if (svgText) rect = svgText.getBoundingClientRect();
      else { const range = document.createRange(); range.selectNodeContents(t); rect = range.getBoundingClientRect(); }
      if (rect.width === 0 && rect.height === 0) continue;
      items.push({ el: svgText || el, rect, text: t.textContent.trim().slice(0, 40) });
    }
    for (const sel of root.querySelectorAll('select')) {
      const text = sel.selectedOptions[0]?.textContent ?? '';
      if (!text.trim()) continue;
      const st = getComputedStyle(sel);
      canvas.font = `${st.fontWeight} ${st.fontSize} ${st.fontFamily}`;
      const room = sel.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight) - 18;  // the arrow
      const rect = sel.getBoundingClientRect();
      items.push({ el: sel, rect, text: text.trim().slice(0, 40), truncated: canvas.measureText(text).width > room + TOL });
    }
    // an empty input's hint (placeholder) must fit its box: cut short, "or a sen" says nothing
    for (const box of root.querySelectorAll('input[placeholder], textarea[placeholder]')) {
      if (box.value || !box.placeholder.trim() || box.type === 'checkbox') continue;
      const st = getComputedStyle(box);
      canvas.font = `${st.fontWeight} ${st.fontSize} ${st.fontFamily}`;
      const room = box.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight);
      const lines = box.tagName === 'TEXTAREA' ? Math.max(1, Math.floor(box.clientHeight / (parseFloat(st.lineHeight) || parseFloat(st.fontSize) * 1.2))) : 1;
      items.push({ el: box, rect: box.getBoundingClientRect(), text: box.placeholder.trim().slice(0, 40),
                   truncated: canvas.measureText(box.placeholder).width > room * lines + TOL, what: 'hint' });
    }
    // a word broken across two lines ("secretar y") that would fit on one line of the widget: each such word of
    // a text node on one line (a token wider than the whole widget, e.g. a long path, may break)
    const split = [];
    const rootStyle = getComputedStyle(root);
    const lineRoom = root.clientWidth - parseFloat(rootStyle.paddingLeft) - parseFloat(rootStyle.paddingRight);
    const walker2 = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let t = walker2.nextNode(); t; t = walker2.nextNode()) {
      const el = t.parentElement;
      if (!el || el.closest('svg, option, style, script, title') || !t.textContent.trim() || !shown(el)) continue;
      const rects = (start, end) => {
        const range = document.createRange();
        range.setStart(t, start);
        range.setEnd(t, end);
        return [...range.getClientRects()].filter((r) => r.width > 0);
      };
      for (const token of t.textContent.matchAll(/[^\s\u200b]+/g)) {  // between spaces; may break at - or /
        const whole = rects(token.index, token.index + token[0].length).reduce((sum, r) => sum + r.width, 0);
        if (whole > lineRoom) continue;
        for (const m of token[0].matchAll(/[^\-\/]+/g)) {
          if (m[0].length < 2) continue;
          const tops = new Set(rects(token.index + m.index, token.index + m.index + m[0].length).map((r) => Math.round(r.top)));
          if (tops.size > 1) split.push({ text: m[0].slice(0, 40), where: name(el), why: 'a word split across lines', rect: [] });
        }
      }
    }
    const clipped = [...split];
    let measured = 0;
    for (const item of items) {
      if (!shown(item.el)) continue;
      measured += 1;
      let r = item.rect;
      let why = item.truncated ? `${item.what ?? 'text'} cut short in its ${name(item.el)}` : '';
      for (let n = /^(SELECT|INPUT|TEXTAREA)$/.test(item.el.tagName) ? item.el.parentElement : item.el; !why && n && n !== root; n = n.parentElement) {
        if (n instanceof SVGSVGElement && /(hidden|clip)/.test(getComputedStyle(n).overflow)
            && !inside(r, n.getBoundingClientRect())) why = `cut by ${name(n)} (an svg that hides its overflow)`;
        if (n instanceof SVGElement) continue;  // an svg that draws its overflow (theme.css): the HTML around it
        const st = getComputedStyle(n);
        if (/^(inline|contents)$/.test(st.display)) continue;  // overflow does not apply
        const scrolls = /(auto|scroll)/.test(st.overflowX + st.overflowY);
        const clips = /(hidden|clip)/.test(st.overflowX + st.overflowY);
        if (scrolls) {
          if (!inside(r, scrollArea(n))) why = `outside the scroll area of ${name(n)}`;
          const c = n.getBoundingClientRect();
          r = { left: c.left, right: c.right, top: c.top, bottom: c.bottom };
        } else if (clips && !inside(r, clientBox(n))) why = `cut by ${name(n)} (overflow ${st.overflowX}/${st.overflowY})`;
      }
      if (!why && !inside({ left: r.left, right: r.right, top: box.top, bottom: box.bottom }, box)) why = 'outside the widget\'s visible box';
      if (why) clipped.push({ text: item.text, where: name(item.el), why,
                              rect: [Math.round(item.rect.left - rr.left), Math.round(item.rect.right - rr.left)] });
    }
    out.roots.push({ cls: name(root), width: Math.round(rr.width), visible: [Math.round(box.left - rr.left), Math.round(box.right - rr.left)],
                     measured, clipped });
  }
  return out.roots;
}
