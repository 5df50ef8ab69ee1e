// Wrapping a line of SVG text into lines that fit a width (SVG text does not wrap by itself). Widths are
// estimated from the font size (lib/labels.js estimateWidth), as everywhere labels are placed.
import { estimateWidth } from "./labels.js";

/**
 * `text` as lines no wider than `width` px at `fontSize`, broken at spaces only (never mid-word); a single
 * word wider than `width` gets a line of its own. Runs of spaces are kept inside a line.
 */
export function wrapWords(text, width, fontSize = 11) {
  const words = String(text ?? "").split(/(?<=\s)(?=\S)/); // each word with the spaces after it
  const lines = [];
  let line = "";
  for (const word of words) {
    if (line && estimateWidth((line + word).trimEnd(), fontSize) > width) {
      lines.push(line.trimEnd());
      line = word;
    } else line += word;
  }
  if (line.trim() || lines.length === 0) lines.push(line.trimEnd());
  return lines;
}

/**
 * A single overlong word (a WordNet sense key such as `engineer%1:18:00::`) cut at its last key boundary
 * (`%`, `:`, `.`, `_`, `-`) that fits `width` px, marked "…": `engineer%1…`. Text that fits, or that has
 * spaces (fitWords' job), is returned as it is; a word with no boundary that fits is cut by characters.
 */
export function fitKey(text, width, fontSize = 11) {
  const full = String(text ?? "");
  if (/\s/.test(full.trim()) || estimateWidth(full, fontSize) <= width) return full;
  for (let end = full.length - 1; end > 0; end -= 1) {
    const head = `${full.slice(0, end)}…`;
    if (/[%:._-]/.test(full[end]) && estimateWidth(head, fontSize) <= width) return head;
  }
  let end = full.length - 1;
  while (end > 1 && estimateWidth(`${full.slice(0, end)}…`, fontSize) > width) end -= 1;
  return `${full.slice(0, end)}…`;
}
