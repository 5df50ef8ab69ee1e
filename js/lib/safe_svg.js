// An SVG string (a figure the report wrote) as a DOM node that cannot run anything: parsed as XML, every
// element outside a small list of drawing elements dropped, every event handler, link and url() removed.
// Used by the report viewer, so a figure's text stays text (and takes the theme's colour through CSS).
import { SVG_NS } from "./dom.js";

const ALLOWED = new Set(["svg", "g", "path", "rect", "line", "circle", "ellipse", "polyline", "polygon", "text",
  "tspan", "title", "desc", "defs", "clipPath"]);

function clean(node) {
  for (const child of [...node.children]) {
    if (child.namespaceURI !== SVG_NS || !ALLOWED.has(child.localName)) child.remove();
    else clean(child);
  }
  for (const attr of [...node.attributes]) {
    const name = attr.name.toLowerCase();
    if (name.startsWith("on") || name.includes("href") || /url\s*\(|javascript:|@import/i.test(attr.value)) {
      node.removeAttribute(attr.name);
    }
  }
}

/** The figure as an <svg> element, or null when the text is not an SVG document. */
export function safeSvg(text) {
  const doc = new DOMParser().parseFromString(String(text ?? ""), "image/svg+xml");
  const root = doc.documentElement;
  if (!root || root.namespaceURI !== SVG_NS || root.localName !== "svg" || doc.querySelector("parsererror")) return null;
  clean(root);
  return document.importNode(root, true);
}
