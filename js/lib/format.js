// One number formatter for every surface (the twin of embias_widgets/formatting.py).
//
// The rules come from embias_widgets/formatting.json, the file the Python formatter reads, so a number
// reads the same in report.html, the report viewer, the widgets and the CLI tables
// (tests/test_formatting.py runs both on the same numbers):
//
//   import { formatValue, formatInterval, columnKinds } from "./lib/format.js";
//   formatValue(1.7077, "effect")  // "1.71"
//   formatValue(3e-5, "p")         // "< 0.0001"
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

/** A p-value: "< 0.0001", "0.0004", "0.023", "1.000". */
export function formatP(p) {
  if (p < data.p_floor) return "< " + fixed(data.p_floor, data.p_small_decimals);
  return fixed(p, p < 0.001 ? data.p_small_decimals : data.decimals.p);
}

/** A count with thousands separators ("10,000"). */
export function formatCount(n) {
  return (Math.trunc(n) || 0).toLocaleString("en-US");  // -0 is written 0
}

/** `value` as text in the style of `kind`; a whole number in a "number" column is written as a count. */
export function formatValue(value, kind = "number") {
  if (value === null || value === undefined) return data.missing;
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "object" && "low" in value && "high" in value) return formatInterval(value, kind);
  if (typeof value !== "number") return String(value);
  return number(value, kind, true);
}

function number(value, kind, wholeAsCount) {
  if (Number.isNaN(value)) return data.not_a_number;
  if (!Number.isFinite(value)) return value > 0 ? "∞" : "-∞";
  if (kind === "count" || (wholeAsCount && kind === "number" && Number.isInteger(value))) {
    return Number.isInteger(value) ? formatCount(value) : fixed(value, data.decimals.number);
  }
  if (kind === "p") return formatP(value);
  return fixed(value, data.decimals[kind] ?? data.decimals.number);
}

/** "[low, high]" in the style of `kind`; an em dash without an interval. */
export function formatInterval(interval, kind = "number") {
  if (!interval || interval.low === null || interval.low === undefined || interval.high === null
      || interval.high === undefined) return data.missing;
  return `[${number(Number(interval.low), kind, false)}, ${number(Number(interval.high), kind, false)}]`;
}

/** A table row as text, each cell in its column's kind. */
export function formatRow(row, columns) {
  const kinds = columnKinds(columns);
  return row.map((v, i) => formatValue(v, kinds[i]));
}

/** "name = value" in the style of `kind`, or "name < 0.0001" where the value is written with "<". */
export function formatStat(name, value, kind = "number") {
  const text = formatValue(value, kind);
  return text.startsWith("<") ? `${name} ${text}` : `${name} = ${text}`;
}
