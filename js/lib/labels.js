// Collision-avoiding placement of point labels along one axis (RIPA rows and
// any new widget with labelled dots). Pure geometry, unit-tested in
// js/tests/labels.test.js.
//
//   placeLabels([{x, width}, ...], {lanes: 4, gap: 4})
//     -> [{lane, shown}] in input order. Labels go to the first lane (0, 1, 2, ...)
//        where they do not overlap a label already there; a label that fits no
//        lane is not shown (the widget shows it on hover instead).
//   The widget maps lanes to heights (e.g. even lanes above the dot, odd below)
//   and draws a leader line from the dot to a label placed off lane 0/1.

export function placeLabels(items, { lanes = 4, gap = 4 } = {}) {
  const order = items.map((item, i) => i).sort((a, b) => items[a].x - items[b].x);
  const ends = new Array(lanes).fill(-Infinity);
  const out = items.map(() => ({ lane: -1, shown: false }));
  for (const i of order) {
    const { x, width } = items[i];
    const left = x - width / 2;
    for (let lane = 0; lane < lanes; lane++) {
      if (left >= ends[lane] + gap) {
        ends[lane] = x + width / 2;
        out[i] = { lane, shown: true };
        break;
      }
    }
  }
  return out;
}

/** Rough width in px of `text` at `fontSize` (used where the DOM cannot measure, e.g. before layout). */
export function estimateWidth(text, fontSize = 11) {
  return String(text).length * fontSize * 0.58 + 2;
}

/**
 * `text` shortened to fit `width` px (at `fontSize`) by dropping whole words, never cutting one: words
 * furthest from the first word containing `keep` (e.g. the slot word of a SEAT sentence) go first, and
 * "…" marks each side where words were dropped. A single word wider than `width` is returned whole.
 */
export function fitWords(text, width, { keep = "", fontSize = 11 } = {}) {
  const full = String(text);
  if (estimateWidth(full, fontSize) <= width) return full;
  const words = full.split(/\s+/).filter(Boolean);
  const needle = String(keep).toLowerCase();
  let k = needle ? words.findIndex((w) => w.toLowerCase().includes(needle)) : 0;
  if (k < 0) k = 0;
  const show = (lo, hi) => `${lo > 0 ? "… " : ""}${words.slice(lo, hi + 1).join(" ")}${hi < words.length - 1 ? " …" : ""}`;
  let lo = k;
  let hi = k;
  for (;;) {
    // grow the window one word at a time, towards the side with more words left, while it fits
    const canLeft = lo > 0 && estimateWidth(show(lo - 1, hi), fontSize) <= width;
    const canRight = hi < words.length - 1 && estimateWidth(show(lo, hi + 1), fontSize) <= width;
    if (canRight && (!canLeft || words.length - 1 - hi >= lo)) hi += 1;
    else if (canLeft) lo -= 1;
    else break;
  }
  return show(lo, hi);
}
