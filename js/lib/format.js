// One number formatter for every surface (the twin of embias_widgets/formatting.py).
//
// The rules come from embias_widgets/formatting.json, the file the Python formatter reads, so a number
// reads the same in report.html, the report viewer, the widgets and the CLI tables
// (tests/test_formatting.py runs both on the same numbers):
//
//   import { formatValue, formatInterval, columnKinds } from "./lib/format.js";
//   formatValue(1.7077, "effect")  // "1.71"
//   formatValue(3e-5, "p")         // "< 0.0001"
//   formatValue(0.0098, "p", 0.01) // "0.0098": never rounded across the alpha in force ("0.010")
//   formatValue(58.333, "percent") // "58.3"
//   formatInterval({ low: 0.52, high: 1.3 }, "effect") // "[0.52, 1.30]"
//
// Rounding is half away from zero on the exact binary value (toFixed), as formatting.py does with Decimal.
import data from "../../embias_widgets/formatting.json" with { type: "json" };

export const FORMATTING = data;
const COLUMNS = data.columns.map((c) => ({ kind: c.kind, re: new RegExp(c.match) }));

/** The kind of the numbers in a table column called `name` ("p", "percent", "effect", "count", ...). */
export function columnKind(name) {
  for (const { kind, re } of COLUMNS) if (re.test(String(name))) return kind;
  return "number";
}

/** The kind of each column; an interval column takes the kind of the column before it. */
export function columnKinds(columns) {
  const out = [];
  for (const name of columns) {
    const kind = columnKind(name);
    out.push(kind === "inherit" ? (out.length ? out[out.length - 1] : "number") : kind);
  }
  return out;
}

/** `value` with `decimals` decimals; "-0.00" is written "0.00". */
export function fixed(value, decimals) {
  const text = Number(value).toFixed(decimals);
  return /^-[0.]+$/.test(text) ? text.slice(1) : text;
}

/** The thresholds in `alpha` (a number, a list of numbers, or null) as a list. */
export function thresholds(alpha) {
  if (alpha === null || alpha === undefined) return [];
  if (typeof alpha === "number") return [alpha];
  return Array.from(alpha).filter((a) => a !== null && a !== undefined).map(Number);
}

function side(x, t) {
  if (Math.abs(x - t) <= data.p_tolerance * Math.abs(t)) return 0;
  return x < t ? -1 : 1;
}

/** A p-value: "< 0.0001", "0.0004", "0.023", "1.000". With `alpha` (the thresholds in force) the number shown
 *  lies on the same side of each threshold as p: decimals are added until it does (0.0098 at 0.01: "0.0098"). */
export function formatP(p, alpha = null) {
  const ts = thresholds(alpha);
  const floor = data.p_floor, small = data.p_small_decimals, most = data.p_max_decimals;
  if (p < floor && ts.every((t) => t >= floor)) return "< " + fixed(floor, small);
  for (let decimals = p < 0.001 ? small : data.decimals.p; decimals <= most; decimals++) {
    const text = fixed(p, decimals);
    const shown = Number(text);
    if ((shown > 0 || p === 0) && ts.every((t) => side(shown, t) === side(p, t))) return text;
  }
  return p < 10 ** -most ? "< " + fixed(10 ** -most, most) : fixed(p, most);
}

/** A count with thousands separators ("10,000"). */
export function formatCount(n) {
  return (Math.trunc(n) || 0).toLocaleString("en-US");  // -0 is written 0
}

/** `value` as text in the style of `kind`, a p-value against the thresholds `alpha`; a whole number in a
 *  "number" column is written as a count unless `wholeAsCount` is false (formatColumn decides it per column). */
export function formatValue(value, kind = "number", alpha = null, wholeAsCount = true) {
  if (value === null || value === undefined) return data.missing;
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "object" && "low" in value && "high" in value) return formatInterval(value, kind);
  if (typeof value !== "number") return String(value);
  return number(value, kind, wholeAsCount, alpha);
}

/** Every finite number among `values` is whole (a column of counts). */
export function wholeColumn(values) {
  return values.every((v) => typeof v !== "number" || !Number.isFinite(v) || Number.isInteger(v));
}

/** A table column's values as text: whole numbers read as counts only when every number of the column is whole;
 *  `alphas[i]` is value i's thresholds (a p column beside a verdict). */
export function formatColumn(values, kind = "number", alphas = null) {
  const counts = wholeColumn(values);
  return values.map((v, i) => formatValue(v, kind, alphas ? alphas[i] : null, counts));
}

function number(value, kind, wholeAsCount, alpha = null) {
  if (Number.isNaN(value)) return data.not_a_number;
  if (!Number.isFinite(value)) return value > 0 ? "∞" : "-∞";
  if (kind === "count" || (wholeAsCount && kind === "number" && Number.isInteger(value))) {
    return Number.isInteger(value) ? formatCount(value) : fixed(value, data.decimals.number);
  }
  if (kind === "p") return formatP(value, alpha);
  return fixed(value, data.decimals[kind] ?? data.decimals.number);
}

/** "[low, high]" in the style of `kind`; an em dash without an interval. */
export function formatInterval(interval, kind = "number") {
  if (!interval || interval.low === null || interval.low === undefined || interval.high === null
      || interval.high === undefined) return data.missing;
  return `[${number(Number(interval.low), kind, false)}, ${number(Number(interval.high), kind, false)}]`;
}

/** Every cell of `rows` as text, column by column (formatColumn); `alphas[i]` is row i's thresholds. */
export function formatTable(rows, kinds, alphas = null) {
  const columns = kinds.map((kind, j) => formatColumn(rows.map((r) => r[j]), kind, alphas));
  return rows.map((_, i) => columns.map((col) => col[i]));
}

/** "name = value" in the style of `kind` (a p-value against `alpha`), or "name < 0.0001" where the value is
 *  written with "<". */
export function formatStat(name, value, kind = "number", alpha = null) {
  const text = formatValue(value, kind, alpha);
  return text.startsWith("<") ? `${name} ${text}` : `${name} = ${text}`;
}
