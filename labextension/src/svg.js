/**
 * A figure's SVG from a report file, made safe to insert inline.
 *
 * The text is parsed as image/svg+xml (never innerHTML) and only drawing
 * elements survive; event handlers, scripts, foreign content, links and
 * anything that could fetch a resource are dropped. Inline, the figure
 * inherits the page's CSS variables, so it follows the JupyterLab theme.
 */

const SVG_NS = 'http://www.w3.org/2000/svg';

// Drawing elements only: no script, foreignObject, a, image, use of external files, animate/set.
const ALLOWED = new Set([
  'svg', 'g', 'defs', 'title', 'desc', 'path', 'rect', 'circle', 'ellipse', 'line', 'polyline',
  'polygon', 'text', 'tspan', 'clippath', 'lineargradient', 'radialgradient', 'stop', 'mask',
  'pattern', 'marker', 'symbol', 'use',
]);  // no <style>: inline, its rules would restyle the whole JupyterLab page

const URL_OUTSIDE = /url\(\s*['"]?\s*(?!#)/i;

/** True when an attribute could run code or fetch something. */
function unsafeAttribute(attr) {
  const name = attr.name.toLowerCase();
  const value = attr.value.trim();
  if (name.startsWith('on')) return true;
  if (name === 'href' || name.endsWith(':href')) return !value.startsWith('#');
  if (/javascript:|data:|@import/i.test(value)) return true;
  return URL_OUTSIDE.test(value);
}

/**
 * Parse ``text`` as SVG and return a cleaned ``<svg>`` element for ``doc``, or
 * null when it is not a well-formed SVG document.
 *
 * Ids are prefixed with ``prefix`` (and references to them rewritten), so two
 * figures on one page never resolve each other's clip paths or gradients.
 *
 * @param {string} text
 * @param {string} prefix
 * @param {Document} doc
 * @returns {{svg: SVGSVGElement | null, removed: number}}
 */
export function sanitizeSvg(text, prefix, doc = document) {
  const parsed = new DOMParser().parseFromString(text, 'image/svg+xml');
  const root = parsed.documentElement;
  if (!root || root.namespaceURI !== SVG_NS || root.localName !== 'svg'
      || parsed.getElementsByTagName('parsererror').length) {
    return { svg: null, removed: 0 };
  }
  let removed = 0;
  for (const el of [...root.querySelectorAll('*')]) {
    if (!el.isConnected) continue;  // inside an element already removed
    if (el.namespaceURI !== SVG_NS || !ALLOWED.has(el.localName.toLowerCase())) {
      el.remove();
      removed += 1;
    }
  }
  for (const el of [root, ...root.querySelectorAll('*')]) {
    for (const attr of [...el.attributes]) {
      if (unsafeAttribute(attr)) {
        el.removeAttributeNode(attr);
        removed += 1;
      }
    }
  }
  prefixIds(root, prefix);
  return { svg: /** @type {SVGSVGElement} */ (doc.importNode(root, true)), removed };
}

/** Prefix every id under ``root`` and rewrite ``url(#id)`` and ``href="#id"`` references to match. */
function prefixIds(root, prefix) {
  const ids = new Set([...root.querySelectorAll('[id]')].map((el) => el.id));
  if (!ids.size) return;
  const rename = (id) => (ids.has(id) ? prefix + id : id);
  for (const el of [root, ...root.querySelectorAll('*')]) {
    for (const attr of [...el.attributes]) {
      const name = attr.name.toLowerCase();
      if (name === 'id') attr.value = rename(attr.value);
      else if ((name === 'href' || name.endsWith(':href')) && attr.value.startsWith('#')) {
        attr.value = '#' + rename(attr.value.slice(1));
      } else if (attr.value.includes('url(#')) {
        attr.value = attr.value.replace(/url\(#([^)\s'"]+)\)/g, (_, id) => `url(#${rename(id)})`);
      }
    }
  }
}
