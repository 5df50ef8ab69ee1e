// Small DOM helpers shared by every widget. User text only ever reaches the
// page through textContent or attribute values, never parsed as HTML.

export const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * Create an HTML element. `props` may hold className, text (set as
 * textContent), title, dataset (object), attrs (object), on (event map).
 */
export function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  applyProps(node, props);
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Create an SVG element with attributes (and optional text content). */
export function s(tag, attrs = {}, text = undefined) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== undefined && v !== null) node.setAttribute(k, String(v));
  }
  if (text !== undefined) node.textContent = String(text);
  return node;
}

function applyProps(node, props) {
  const { className, text, title, dataset, attrs, on, ...rest } = props;
  if (className) node.className = className;
  if (text !== undefined) node.textContent = String(text);
  if (title !== undefined) node.title = String(title);
  for (const [k, v] of Object.entries(dataset || {})) node.dataset[k] = String(v);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  for (const [k, v] of Object.entries(on || {})) node.addEventListener(k, v);
  for (const [k, v] of Object.entries(rest)) node[k] = v;
}

/** Split pasted or typed text into items: newlines, commas, semicolons and tabs separate. */
export function splitItems(text) {
  return String(text)
    .split(/[\n,;\t]+/)
    .map((w) => w.trim().replace(/\s+/g, " "))
    .filter((w) => w.length > 0);
}

/** Format a signed number with a fixed number of decimals ("undefined" for null). */
export function signed(value, digits = 4) {
  if (value === null || value === undefined || Number.isNaN(value)) return "undefined";
  const text = Number(value).toFixed(digits);
  return value >= 0 ? `+${text}` : text;
}

/** Subscribe to model changes; returns a function that unsubscribes. */
export function listen(model, names, callback) {
  const events = names.map((n) => `change:${n}`);
  for (const e of events) model.on(e, callback);
  return () => {
    for (const e of events) model.off(e, callback);
  };
}
