/**
 * Render an ``embias-report/1`` JSON document (what ``embias report`` writes) as DOM.
 *
 * Every string from the file is set with textContent; the one piece of markup
 * a report carries (a figure's SVG) goes through ``sanitizeSvg``. No number is
 * computed here: the viewer shows what the file holds.
 */

import { sanitizeSvg } from './svg.js';

export const SCHEMA = 'embias-report/1';

/** Create an element with a class and, optionally, its text. */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

/** A cell as a person reads it: numbers to at most 4 significant decimals, null as an em dash. */
export function formatCell(value) {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return String(value);
    if (Number.isInteger(value)) return String(value);
    return Math.abs(value) >= 1e-3 || value === 0 ? value.toFixed(4).replace(/0+$/, '').replace(/\.$/, '')
      : value.toExponential(2);
  }
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * Check the parsed file is a report this viewer understands; throws an Error naming what is wrong.
 * @param {unknown} data
 */
export function validateReport(data) {
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    throw new Error('not an embias report: the file is not a JSON object');
  }
  if (data.schema !== SCHEMA) {
    throw new Error(`not an embias report: "schema" is ${JSON.stringify(data.schema ?? null)}, `
      + `this viewer reads "${SCHEMA}" (write one with \`embias report\`, or open the file with Open With > Editor)`);
  }
  if (!Array.isArray(data.sections)) throw new Error('malformed embias report: "sections" is not a list');
  return data;
}

/** A scrolling table from column names and rows of cells. */
function table(columns, rows, className) {
  const wrap = el('div', 'embias-report-scroll');
  const t = el('table', `embias-report-table ${className ?? ''}`.trim());
  const head = t.createTHead().insertRow();
  for (const c of columns) head.appendChild(el('th', '', c));
  const body = t.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    for (const cell of row) tr.appendChild(el('td', typeof cell === 'number' ? 'num' : '', formatCell(cell)));
  }
  wrap.appendChild(t);
  return wrap;
}

function header(report) {
  const box = el('header', 'embias-report-header');
  box.appendChild(el('h1', 'embias-report-title', report.title || 'embias report'));
  const meta = el('p', 'embias-report-meta');
  const prov = report.provenance ?? {};
  const bits = [
    report.created && `created ${report.created}`,
    report.quick ? 'quick run' : 'full run',
    prov.package_version && `embias-widgets ${prov.package_version}`,
    prov.python && `Python ${prov.python}`,
    prov.platform,
    typeof prov.seconds === 'number' && `${prov.seconds.toFixed(1)} s`,
  ].filter(Boolean);
  meta.textContent = bits.join(' · ');
  box.appendChild(meta);
  const models = (report.models ?? []).map((m) => [m.name, m.kind, m.fingerprint]);
  if (models.length) box.appendChild(table(['model', 'kind', 'fingerprint'], models, 'embias-report-models'));
  const files = Object.entries(report.data_files ?? {}).map(([name, f]) => [name, f?.source, f?.sha256]);
  if (files.length) box.appendChild(table(['data file', 'source', 'sha256'], files, 'embias-report-files'));
  if (prov.options && Object.keys(prov.options).length) {
    box.appendChild(table(['option', 'value'], Object.entries(prov.options), 'embias-report-options'));
  }
  if (report.holm) {
    box.appendChild(el('p', 'embias-report-holm',
      `Holm–Bonferroni over ${report.holm.n_tests} p-values at α = ${report.holm.alpha}`));
  }
  return box;
}

function sourceText(source) {
  if (!source) return 'no source given';
  return [source.paper, source.table, source.row].filter((x) => x !== undefined && x !== null).join(', ');
}

function section(sec, index) {
  const box = el('details', `embias-report-section embias-report-${sec.status ?? 'done'}`);
  box.open = true;
  box.dataset.sectionId = String(sec.id ?? index);
  const summary = el('summary', 'embias-report-section-title');
  summary.appendChild(el('span', '', sec.title ?? sec.id ?? `section ${index + 1}`));
  const tags = [sec.model, sec.method, typeof sec.seconds === 'number' ? `${sec.seconds.toFixed(1)} s` : null];
  summary.appendChild(el('span', 'embias-report-tags', tags.filter(Boolean).join(' · ')));
  box.appendChild(summary);
  if (sec.status && sec.status !== 'done') {
    box.appendChild(el('p', 'embias-report-status', `${sec.status}: ${sec.reason ?? 'no reason given'}`));
  }
  if (sec.what) box.appendChild(el('p', 'embias-report-what', sec.what));
  if (sec.table?.columns?.length) box.appendChild(table(sec.table.columns, sec.table.rows ?? []));
  const published = sec.published ?? [];
  if (published.length) {
    box.appendChild(el('h3', '', 'Published figures'));
    box.appendChild(table(['', 'published', 'ours', 'source'],
      published.map((p) => [p.label, p.value, p.ours, sourceText(p.source)]), 'embias-report-published'));
  } else if (sec.status === 'done') {
    box.appendChild(el('p', 'embias-report-note', 'no published figure'));
  }
  const sig = sec.significance ?? [];
  if (sig.length) {
    box.appendChild(el('h3', '', 'Significance'));
    box.appendChild(table(['', 'p', 'p (Holm)', 'significant'],
      sig.map((s) => [s.label, s.p, s.p_holm, s.significant]), 'embias-report-significance'));
  }
  if (sec.figure?.svg) box.appendChild(figure(sec.figure.svg, `embias-fig-${index}-`));
  const notes = sec.notes ?? [];
  if (notes.length) {
    const ul = el('ul', 'embias-report-notes');
    for (const n of notes) ul.appendChild(el('li', '', n));
    box.appendChild(ul);
  }
  return box;
}

function figure(svgText, prefix) {
  const fig = el('figure', 'embias-report-figure');
  const { svg } = sanitizeSvg(String(svgText), prefix);
  if (svg) {
    // scale to the column: the viewBox (made from width and height when missing) keeps the proportions
    const [w, h] = [parseFloat(svg.getAttribute('width')), parseFloat(svg.getAttribute('height'))];
    if (!svg.hasAttribute('viewBox') && w > 0 && h > 0) svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
    if (svg.hasAttribute('viewBox')) {
      if (w > 0) svg.style.maxWidth = `${w}px`;
      svg.removeAttribute('width');
      svg.removeAttribute('height');
    }
    fig.appendChild(svg);
  } else {
    fig.appendChild(el('p', 'embias-report-note', 'the figure in this report is not a readable SVG'));
  }
  return fig;
}

/**
 * The whole report as one element.
 * @param {object} data the parsed report.json
 * @returns {HTMLElement}
 */
export function renderReport(data) {
  const report = validateReport(data);
  const root = el('article', 'embias-report');
  root.appendChild(header(report));
  report.sections.forEach((sec, i) => root.appendChild(section(sec, i)));
  return root;
}

/** The message shown in place of a report the viewer cannot read. */
export function renderError(message) {
  const root = el('article', 'embias-report embias-report-error');
  root.appendChild(el('h1', 'embias-report-title', 'This file cannot be shown as a report'));
  root.appendChild(el('p', '', message));
  return root;
}
