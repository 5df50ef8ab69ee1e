// What a widget's error line says, from Python's traits (no DOM here, so node can test it).
// The rule (embias_widgets/widgets/_base.py): `error` is why the last recompute failed or which
// input was refused; `refused` keeps every refused input with its reason until it is fixed;
// `stale` says the numbers held belong to a previous input. While `error` or `stale` is set the
// widget clears or greys its numbers.

/**
 * The problem of a widget model: `{ text, stale }`. `text` is `error`, then each refused input not
 * already named by it, one per line; when only `stale` is set, `staleText`. All of it is shown as
 * text (textContent): the refused value is what the user typed.
 */
export function problemOf(model, { staleText = "These numbers belong to a previous input." } = {}) {
  const error = model.get("error") || "";
  const refused = Object.values(model.get("refused") || {})
    .map((r) => (r && typeof r.message === "string" ? r.message : ""))
    .filter((m) => m && !error.includes(m));
  const staleFlag = Boolean(model.get("stale"));
  const lines = [error, ...refused].filter(Boolean);
  if (!lines.length && staleFlag) lines.push(staleText);
  return { text: lines.join("\n"), stale: Boolean(error) || staleFlag };
}
