// Shared widget chrome: the themed root, JupyterLab-style buttons and
// toolbars, the inline help "?", the busy indicator and the error/stale state.
// Every new widget should use these, so all widgets look and behave alike.
//
//   import { mountRoot, button, toolbar, helpButton, busyIndicator, errorState } from "./lib/ui.js";
//   mountRoot(el, "embias-my-widget");  // adds .embias-widget (theme variables, fonts, controls;
//                                        // see lib/theme.css) and the palette's CSS variables
//   const bar = toolbar(button("Undo", onUndo, {title: "undo the last edit"}), helpButton(HELP_KEYS));
//   const busy = busyIndicator(el);      // busy.set(true) shows "computing..." and el[data-busy]
//   busy.pending();                      // after sending an edit: busy until busy.done() / next result
//   const err = errorState(el);          // err.set(message): shows the message, sets el[data-stale]
//                                        // (the widget then clears or greys its old numbers); err.set("") clears
//   const stale = err.show(model);       // the same from Python's error, refused and stale traits (lib/problems.js)
//
// Styles live in lib/theme.css; import it from the widget's CSS (`@import "./lib/theme.css";`).
import { h } from "./dom.js";
import { applyPalette } from "./palette.js";
import { helpPanel } from "./help.js";
import { problemOf } from "./problems.js";

/** Mark `el` as an embias widget root: theme variables, fonts, controls, palette. */
export function mountRoot(el, className) {
  el.classList.add("embias-widget", className);
  applyPalette(el);
  return el;
}

/**
 * Call `onWidth(px)` with the content width of `root` (its width less padding) now and whenever it changes
 * (a ResizeObserver, one call per animation frame), clamped to [min, max]; `fallback` until `root` is laid out.
 * Charts draw at that width, so they fit their box from 360 px to full screen. Returns a disconnect function.
 */
export function watchWidth(root, onWidth, { min = 240, max = 720, fallback = max } = {}) {
  let last = null;
  let frame = 0;
  const measure = () => {
    frame = 0;
    const st = getComputedStyle(root);
    const inner = root.clientWidth - parseFloat(st.paddingLeft || 0) - parseFloat(st.paddingRight || 0);
    const width = Math.round(Math.max(min, Math.min(max, inner > 0 ? inner : fallback)));
    if (width !== last) {
      last = width;
      onWidth(width);
    }
  };
  if (typeof ResizeObserver === "undefined") return () => {};
  const observer = new ResizeObserver(() => {
    if (!frame) frame = requestAnimationFrame(measure);
  });
  observer.observe(root);
  const seen = typeof IntersectionObserver === "undefined" ? null : new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting) && !frame) frame = requestAnimationFrame(measure); // back in view
  });
  seen?.observe(root);
  return () => {
    seen?.disconnect();
    observer.disconnect();
    cancelAnimationFrame(frame);
  };
}

/** A small JupyterLab-styled button. */
export function button(label, onClick, { title, className = "", ariaLabel } = {}) {
  return h("button", {
    className: `embias-button ${className}`.trim(),
    text: label,
    title: title ?? label,
    attrs: { type: "button", ...(ariaLabel ? { "aria-label": ariaLabel } : {}) },
    on: { click: onClick },
  });
}

/** A row of grouped controls; `null`s are skipped. */
export function toolbar(...children) {
  return h("div", { className: "embias-toolbar", attrs: { role: "toolbar" } }, ...children);
}

/** A group of buttons drawn as one segmented control. */
export function group(...children) {
  return h("span", { className: "embias-group" }, ...children);
}

/** A labelled <select>; options: [[value, label], ...]. onChange(value). */
export function select(label, options, value, onChange, { className = "", title } = {}) {
  const node = h("select", { className: `embias-select ${className}`.trim(), title: title ?? label });
  setOptions(node, options, value);
  node.addEventListener("change", () => onChange(node.value));
  return { node, label: h("label", { className: "embias-label" }, `${label} `, node), setOptions: (o, v) => setOptions(node, o, v) };
}

function setOptions(node, options, value) {
  node.replaceChildren(...options.map(([v, text]) => h("option", { value: v, text, selected: v === value })));
  node.value = value;
}

/**
 * The "?" button and its panel. `keys` name entries of HELP in lib/help.js
 * (or pass {term, text, cite} objects for widget-specific entries).
 * Returns {button, panel}: put the button in the toolbar and the panel below it.
 */
export function helpButton(keys, { title = "What do these numbers mean?" } = {}) {
  const panel = helpPanel(keys);
  panel.hidden = true;
  const node = h("button", {
    className: "embias-button embias-help-button",
    text: "?",
    title,
    attrs: { type: "button", "aria-label": "help", "aria-expanded": "false" },
  });
  node.addEventListener("click", () => {
    panel.hidden = !panel.hidden;
    node.setAttribute("aria-expanded", String(!panel.hidden));
  });
  return { button: node, panel };
}

/** "computing..." with a spinner while Python recomputes; sets data-busy on the root. */
export function busyIndicator(root) {
  const node = h("span", { className: "embias-busy", attrs: { role: "status", "aria-live": "polite" } });
  const spinner = h("span", { className: "embias-spinner", attrs: { "aria-hidden": "true" } });
  const text = h("span", { className: "embias-busy-text" });
  node.append(spinner, text);
  let pendingSince = null;
  let timer = null;
  function set(busy, label = "computing…") {
    root.dataset.busy = busy ? "true" : "false";
    node.classList.toggle("embias-busy-on", Boolean(busy));
    text.textContent = busy ? label : "";
    if (!busy) {
      pendingSince = null;
      clearTimeout(timer);
    }
  }
  set(false);
  return {
    node,
    set,
    /** An edit was sent: show busy until done() (a safety timeout clears it after 60 s). */
    pending() {
      pendingSince = performance.now();
      set(true);
      clearTimeout(timer);
      timer = setTimeout(() => set(false), 60_000);
    },
    /** A result arrived: clear the busy state; returns ms since pending() (or null). */
    done() {
      const ms = pendingSince === null ? null : performance.now() - pendingSince;
      set(false);
      return ms;
    },
  };
}

/**
 * The error line of a widget. set(message) shows it and sets root[data-stale="true"]:
 * the old result is no longer the result of what is shown in the inputs, so the
 * widget must clear (or grey) its numbers and marks; set("") removes both.
 */
export function errorState(root, { prefix = "" } = {}) {
  const node = h("div", { className: "embias-error", attrs: { role: "alert" } });
  node.hidden = true;
  return {
    node,
    set(message) {
      const text = message ? `${prefix}${message}` : "";
      node.textContent = text;
      node.hidden = !text;
      root.dataset.stale = text ? "true" : "false";
      return Boolean(text);
    },
    /** Show the model's error, refused inputs and stale flag; returns true when the numbers must go. */
    show(model, options) {
      const problem = problemOf(model, options);
      node.textContent = problem.text;
      node.hidden = !problem.text;
      root.dataset.stale = problem.stale ? "true" : "false";
      return problem.stale;
    },
  };
}
