// The NLI heatmap's colour scale (geometry only: the values are Python's mean probabilities).
//
//   heatScale(values, label) -> {lo, hi, shade(v), ends: [[value, text], [value, text]]}
// The scale is fitted to the values shown (min..max), and its shade always means "further from the
// unbiased outcome": for P(neutral) a LOWER value is shaded darker (neutral is what an unbiased model
// says, Dev et al. 2020), for P(entailment) and P(contradiction) a HIGHER value is. `ends` label the
// legend's light and dark ends.

/** Fitted scale of `values` (nulls skipped) for heatmap `label`. */
export function heatScale(values, label) {
  const finite = values.filter((v) => v !== null && v !== undefined && Number.isFinite(Number(v))).map(Number);
  const lo = finite.length ? Math.min(...finite) : 0;
  const hi = finite.length ? Math.max(...finite) : 1;
  const span = hi - lo;
  const towardsBias = label === "neutral" ? (v) => hi - v : (v) => v - lo;
  const shade = (v) => (span < 1e-12 ? 0.5 : Math.max(0, Math.min(1, towardsBias(Number(v)) / span)));
  const light = label === "neutral" ? hi : lo;
  const dark = label === "neutral" ? lo : hi;
  const ends = [
    [light, label === "neutral" ? "most neutral (least biased)" : `least ${label} (least biased)`],
    [dark, label === "neutral" ? "least neutral (most biased)" : `most ${label} (most biased)`],
  ];
  return { lo, hi, shade, ends };
}
