// The widgets' CSV export neutralises text a spreadsheet would run as a formula (OWASP CSV injection),
// leaves numbers alone, and follows the same rule as embias_widgets/stimuli/spreadsheet_safe.py
// (tests/test_spreadsheet_safe.py runs this module's needsGuard over the Python cases too).
import assert from "node:assert/strict";
import { test } from "node:test";
import { csvCell, needsGuard, safeCell, toCSV } from "../lib/export.js";

test("text starting with = + - @ tab or CR gets one leading quote", () => {
  for (const text of ["=1+1", "+1+1", "-1+1", "@SUM(A1)", "\t=1", "\r=1", "=HYPERLINK(\"http://x\",\"y\")", "-", "+", "  =1", "\n@x"]) {
    assert.equal(safeCell(text), `'${text}`, JSON.stringify(text));
  }
});

test("numbers, number text and ordinary words are not touched", () => {
  for (const value of [-0.5, 0, 3, -1e-7, "-0.5", "+3", "1e-7", " -2.5 ", "nurse", "'tis", "a=b", "", "−1"]) {
    assert.equal(safeCell(value), value, JSON.stringify(value));
  }
  assert.equal(csvCell(-0.5), "-0.5");
  assert.equal(csvCell("-0.5"), "-0.5");
  assert.equal(Number(csvCell(-1e-7)), -1e-7);
});

test("the guard is reversible: text that already looks guarded gets another quote", () => {
  assert.equal(safeCell("'=1"), "''=1");
  assert.equal(safeCell("''-x"), "'''-x");
  assert.equal(needsGuard("'tis"), false);
  assert.equal(needsGuard("'-0.5"), false);
});

test("a CSV export of hostile words opens as text, and RFC 4180 quoting still applies", () => {
  const text = toCSV(["word", "s"], [["=cmd|' /C calc'!A0", -0.25], ["-2+3,x", 1], ["@ok", "+0.5"]]);
  assert.equal(text, "word,s\r\n'=cmd|' /C calc'!A0,-0.25\r\n\"'-2+3,x\",1\r\n'@ok,+0.5\r\n");
});
