// The frame of every widget's exported figure, in the report's figure style
// (embias_widgets/analysis/report/figures.py): a title naming the test and the model, the significance
// marks' alpha and correction stated in the legend, the no-bias line named, labels of at least 11 px, and
// a PNG at 300 dpi (the canvas scaled by 300/96, the pHYs chunk saying 300 dpi). One module for the
// effect-size bars, the likelihood table, the RIPA plot and the NLI heatmap; lib/export.js lays it out.
//
//   import { figureFrame } from "./lib/figure_frame.js";
//   exportButtons({ figure: () => figureFrame({ test: "WEAT 6", model: "glove", alpha: 0.05,
//     correction: "none", ref: [0, "d = 0: no bias"], lines: [...], legend: [...] }), ... });
//
// Every function here is pure (no DOM) and unit-tested in js/tests/figure_frame.test.js.

export const PPI = 300;
export const CSS_PPI = 96;
/** How much the PNG's canvas is scaled: 300 dpi over the 96 px per inch of CSS pixels. */
export const PNG_SCALE = PPI / CSS_PPI;
/** The smallest text in an exported figure (px), as the report's figures. */
export const MIN_LABEL_PX = 11;

/** "WEAT 6: Math vs Arts — glove-6b-50d": the test and the model (either left out when unknown). */
export function figureTitle(test, model) {
  const t = String(test ?? "").trim();
  const m = String(model ?? "").trim();
  if (t && m) return t.includes(m) ? t : `${t} — ${m}`;
  return t || m;
}

/** The legend entry of the significance marks: "* significant: p < α = 0.05, correction: Holm". */
export function significanceEntry(alpha, correction) {
  if (alpha === null || alpha === undefined || alpha === "") return null;
  return [`* significant: p < α = ${alpha}; correction for multiple tests: ${correction || "none"}`, null];
}

/** The legend entry of the no-bias line: `[value, words]` -> "dashed line at 50: no bias". */
export function referenceEntry(ref) {
  if (!ref) return null;
  const [value, words] = ref;
  return [`line at ${value}: ${words || "no bias"}`, "embias-fig-ref"];
}

/**
 * {title, subtitle, lines, legend} for lib/export.js svgMarkup: the title names `test` and `model`; the
 * legend ends with the no-bias line (`ref`: [value, words]) and the significance marks (`alpha`,
 * `correction`) where given.
 */
export function figureFrame({ test, model, subtitle = "", lines = [], legend = [], alpha = null, correction = null, ref = null }) {
  return {
    title: figureTitle(test, model),
    subtitle,
    lines: lines.filter(Boolean),
    legend: [...legend, referenceEntry(ref), significanceEntry(alpha, correction)].filter(Boolean),
  };
}

/** A CSS font size ("10px") raised to at least MIN_LABEL_PX; other values as they are. */
export function readableFontSize(value) {
  const m = /^([0-9.]+)px$/.exec(String(value).trim());
  return m && Number(m[1]) < MIN_LABEL_PX ? `${MIN_LABEL_PX}px` : value;
}

let CRC_TABLE = null;

/** CRC-32 (ISO 3309, as PNG chunks use) of `bytes`. */
export function crc32(bytes) {
  if (!CRC_TABLE) {
    CRC_TABLE = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      CRC_TABLE[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * PNG bytes that state `ppi` pixels per inch: a pHYs chunk (pixels per metre, unit 1) right after IHDR, any
 * pHYs already there dropped. Pixels are unchanged. Throws on bytes that are not a PNG.
 */
export function withPpi(png, ppi = PPI) {
  const sig = [137, 80, 78, 71, 13, 10, 26, 10];
  if (png.length < 33 || sig.some((b, i) => png[i] !== b)) throw new Error("not a PNG");
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const chunks = [];
  for (let at = 8; at < png.length;) {
    const len = view.getUint32(at);
    const type = String.fromCharCode(...png.subarray(at + 4, at + 8));
    chunks.push({ type, bytes: png.subarray(at, at + 12 + len) });
    at += 12 + len;
  }
  const ppm = Math.round(ppi / 0.0254);
  const phys = new Uint8Array(21);
  const pv = new DataView(phys.buffer);
  pv.setUint32(0, 9);
  phys.set([0x70, 0x48, 0x59, 0x73], 4); // "pHYs"
  pv.setUint32(8, ppm);
  pv.setUint32(12, ppm);
  phys[16] = 1; // unit: metre
  pv.setUint32(17, crc32(phys.subarray(4, 17)));
  const parts = [png.subarray(0, 8)];
  for (const c of chunks) {
    if (c.type === "pHYs") continue;
    parts.push(c.bytes);
    if (c.type === "IHDR") parts.push(phys);
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The pixels per inch a PNG states in its pHYs chunk (null without one, or in an unknown unit). */
export function pngPpi(png) {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  for (let at = 8; at + 8 <= png.length;) {
    const len = view.getUint32(at);
    if (String.fromCharCode(...png.subarray(at + 4, at + 8)) === "pHYs") {
      return png[at + 16] === 1 ? view.getUint32(at + 8) * 0.0254 : null;
    }
    at += 12 + len;
  }
  return null;
}
