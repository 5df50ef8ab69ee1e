// Shared palette (for every widget, today's and new ones).
//
// The colours come from embias_widgets/palette.json, the same file that
// embias_widgets/palette.py reads for the altair charts, so a set or group has
// one colour in the widget and in the chart of the same result.
//
//   import { PALETTE, applyPalette, groupColors, setColor } from "./lib/palette.js";
//   applyPalette(el);              // defines --embias-c-targ1 ... --embias-c-stereo on el
//   fill: var(--embias-c-targ1)    // in CSS / SVG attributes
//   groupColors(["pairs: first", "men", "women"]) // Map group -> colour (same rule as Python)
//
// Colours are for marks (bars, dots, swatches), each >= 3:1 against the light
// and dark backgrounds; text stays in var(--embias-fg), never on a colour.
import data from "../../embias_widgets/palette.json" with { type: "json" };

export const PALETTE = data;

/** Colour of a set of an association test ("targ1", "targ2", "attr1", "attr2"). */
export function setColor(key) {
  return data.sets[key] ?? data.categorical[0];
}

/** Map group -> colour: pair groups keep theirs, other groups take the categorical colours in order. */
export function groupColors(groups) {
  const out = new Map();
  let i = 0;
  for (const g of groups) {
    if (out.has(g)) continue;
    if (Object.hasOwn(data.pairs, g)) out.set(g, data.pairs[g]);
    else {
      out.set(g, data.categorical[i % data.categorical.length]);
      i += 1;
    }
  }
  return out;
}

/** The word for a palette colour ("crimson", "grey"), as the legends and notebooks say it; else the hex code. */
export function colorName(colour) {
  return data.names[String(colour).toLowerCase()] ?? colour;
}

/** Background for a heat shade in [0, 1]: the heat colour with alpha, so text in --embias-fg stays readable. */
export function heatColor(shade) {
  const t = Math.max(0, Math.min(1, Number(shade) || 0));
  const [r, g, b] = data.heat.rgb;
  return `rgba(${r}, ${g}, ${b}, ${(t * data.heat.max_alpha).toFixed(3)})`;
}

/** Define the palette as CSS variables on `el` (--embias-c-targ1, --embias-c-stereo, --embias-c-positive, ...). */
export function applyPalette(el) {
  for (const group of [data.sets, data.likelihood, data.sign]) {
    for (const [k, v] of Object.entries(group)) el.style.setProperty(`--embias-c-${k}`, v);
  }
  data.categorical.forEach((c, i) => el.style.setProperty(`--embias-c-${i}`, c));
}
