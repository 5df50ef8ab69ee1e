// Scales, ticks and clipping for SVG drawing (geometry only: no statistic is
// computed here; every value drawn comes from Python). Shared by every widget.
//
//   linear([d0, d1], [r0, r1])  -> clamped map
//   signedBar(scale, v)         -> {x, width} of a bar from 0 to v
//   niceDomain(values, {minSpan}) -> {domain: [lo, hi], ticks} with steps 1, 2, 5 x 10^k, containing 0
//   keptAxis(values, previous, {keep}) -> the previous axis while every value fits, else grown (or fitted)
//   clipped(value, domain)      -> "low" | "high" | null: whether a value lies outside the drawn axis
//   labelledTicks(ticks, x)     -> the ticks whose labels fit beside each other at this width (0 kept)

/** Map [d0, d1] to [r0, r1], clamped to the range. */
export function linear([d0, d1], [r0, r1]) {
  return (v) => {
    const t = (v - d0) / (d1 - d0);
    const clamped = Math.max(0, Math.min(1, t));
    return r0 + clamped * (r1 - r0);
  };
}

/** Rectangle x and width for a signed bar from 0 to `value` on `scale`. */
export function signedBar(scale, value) {
  const zero = scale(0);
  const end = scale(value);
  return { x: Math.min(zero, end), width: Math.abs(end - zero) };
}

/** A domain containing 0 and every value, rounded out to ticks of step 1, 2 or 5 x 10^k. */
export function niceDomain(values, { nTicks = 5, minSpan = 0 } = {}) {
  const finite = values.map(Number).filter((v) => Number.isFinite(v));
  let lo = Math.min(0, ...finite);
  let hi = Math.max(0, ...finite);
  if (minSpan > 0 && hi - lo < minSpan) {
    lo = Math.min(lo, -minSpan / 2);
    hi = Math.max(hi, minSpan / 2);
  }
  if (hi - lo < 1e-12) {
    lo = -1;
    hi = 1;
  }
  const raw = (hi - lo) / Math.max(1, nTicks - 1);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw);
  const decimals = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  const at = (k) => Number((k * step).toFixed(decimals));
  const k0 = Math.floor(lo / step + 1e-9);
  const k1 = Math.ceil(hi / step - 1e-9);
  const ticks = [];
  for (let k = k0; k <= k1; k++) ticks.push(at(k) === 0 ? 0 : at(k));
  lo = at(k0);
  hi = at(k1);
  return { domain: [lo, hi], ticks };
}

/**
 * An axis that stays put across edits: `previous` ({domain, ticks} or null) while `keep` is set and every
 * value lies inside it; else a nice domain over the values, grown from `previous` when `keep` is set (the
 * range only grows), fitted to the values alone when not.
 */
export function keptAxis(values, previous, { keep = true, nTicks = 6 } = {}) {
  const kept = keep && previous && previous.domain && previous.domain.length === 2;
  if (kept && values.every((v) => previous.domain[0] <= v && v <= previous.domain[1])) return previous;
  return niceDomain(kept ? [...values, ...previous.domain] : values, { nTicks });
}

/** "low" or "high" when `value` lies outside [lo, hi] (it is drawn clipped at that end), else null. */
export function clipped(value, [lo, hi]) {
  if (value === null || value === undefined || Number.isNaN(value)) return null;
  if (value < lo) return "low";
  if (value > hi) return "high";
  return null;
}

/** Tick label: at most 3 decimals, no trailing zeros, a real minus sign. */
export function tickLabel(value) {
  const text = String(Number(Number(value).toFixed(3)));
  return text.startsWith("-") ? `\u2212${text.slice(1)}` : text;
}

/**
 * The ticks whose labels (tickLabel, `fontSize` px, centred on x(tick)) can be drawn without running into each
 * other: from 0 (or the first tick) outwards, a tick is kept when its label clears the last kept one by `gap`
 * px. Widths are estimated generously (a browser's font may be wider than the estimate): a narrow plot labels
 * every second or fifth tick rather than drawing "−0.04−0.02" into one.
 */
export function labelledTicks(ticks, x, { fontSize = 10, gap = 6 } = {}) {
  const width = (t) => 1.25 * (String(tickLabel(t)).length * fontSize * 0.58 + 2);
  const start = ticks.includes(0) ? ticks.indexOf(0) : 0;
  const kept = new Set([start]);
  for (const dir of [-1, 1]) {
    let last = start;
    for (let i = start + dir; i >= 0 && i < ticks.length; i += dir) {
      if (Math.abs(x(ticks[i]) - x(ticks[last])) >= (width(ticks[i]) + width(ticks[last])) / 2 + gap) {
        kept.add(i);
        last = i;
      }
    }
  }
  return ticks.filter((_, i) => kept.has(i));
}
