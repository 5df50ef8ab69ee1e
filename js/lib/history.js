// Undo history for what the user typed (shared by every editor widget).
//
//   const history = createHistory(50);
//   history.push(before);            // before committing an edit, keep the old value
//   if (history.canUndo()) commit(history.undo());
//
// Values are deep-copied (JSON), so later edits cannot change what was kept.
// Pure: unit-tested in js/tests/history.test.js.

export function createHistory(limit = 50) {
  const stack = [];
  return {
    push(value) {
      const copy = JSON.parse(JSON.stringify(value));
      if (stack.length && JSON.stringify(stack[stack.length - 1]) === JSON.stringify(copy)) return;
      stack.push(copy);
      if (stack.length > limit) stack.shift();
    },
    undo() {
      return stack.pop();
    },
    canUndo() {
      return stack.length > 0;
    },
    get size() {
      return stack.length;
    },
    clear() {
      stack.length = 0;
    },
  };
}
