// Linear scales for SVG drawing (geometry only: no statistic is computed here).

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
