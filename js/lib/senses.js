// Pure helpers of the sense selector (unit-tested with node's test runner).

/** The list's rows: an "any sense" row first when lemmas are allowed, then one per sense. */
export function optionItems(senses, query, allowLemmas) {
  const rows = senses.map((sense) => ({ item: sense.key, sense }));
  const lemmas = [...new Set(senses.map((s) => s.lemma))];
  if (allowLemmas && senses.length > 1 && lemmas.length === 1 && !query.includes("%")) {
    rows.unshift({ item: lemmas[0], sense: null, count: senses.length });
  }
  return rows;
}

/** The next active index for a key press (wraps nothing; -1 = none). */
export function moveActive(active, key, n) {
  if (n === 0) return -1;
  if (key === "ArrowDown") return Math.min(active + 1, n - 1);
  if (key === "ArrowUp") return Math.max(active - 1, 0);
  if (key === "Home") return 0;
  if (key === "End") return n - 1;
  return active;
}

/** Selection after toggling `item`: removed if there, else added (replacing it when single). */
export function toggled(selected, item, multiple) {
  if (selected.includes(item)) return selected.filter((s) => s !== item);
  return multiple ? [...selected, item] : [item];
}

/** `fn` called once, `wait` ms after the last of a burst of calls; `.flush()` calls it now. */
export function debounce(fn, wait) {
  let timer = null;
  const wrapped = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      fn();
    }, wait);
  };
  wrapped.flush = () => {
    if (timer !== null) {
      clearTimeout(timer);
      timer = null;
    }
    fn();
  };
  return wrapped;
}
