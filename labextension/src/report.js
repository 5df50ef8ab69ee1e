/**
 * An ``embias-report/1`` file (what ``embias report`` writes) as the page report.html shows.
 *
 * The blocks come from the Jupyter server (``POST embias-widgets/report-page``, answered by
 * embias_widgets/widgets/lab_server.py from analysis/publish/page.py) and are drawn by js/lib/report_blocks.js,
 * the module the ReportViewer widget draws them with: every text through textContent, numbers through
 * js/lib/format.js, figures through js/lib/safe_svg.js. No number is computed here.
 */

import { block } from '../../js/lib/report_blocks.js';

export const ROUTE = 'embias-widgets/report-page';

/** The request headers the Jupyter server wants (its token and the XSRF cookie), as ServerConnection sends. */
function headers(settings) {
  const out = { 'Content-Type': 'application/json' };
  if (settings.token) out.Authorization = `token ${settings.token}`;
  const xsrf = document.cookie.match('\\b_xsrf=([^;]*)\\b');
  if (xsrf) out['X-XSRFToken'] = xsrf[1];
  return out;
}

/**
 * The page blocks of a report's text, from the server; rejects with an Error saying what is wrong.
 * @param {{baseUrl: string, token?: string, init?: object, fetch?: Function}} settings the app's server settings
 * @param {string} text the file's text
 */
export async function requestPage(settings, text) {
  const url = settings.baseUrl.replace(/\/?$/, '/') + ROUTE;
  const fetchFn = settings.fetch ?? window.fetch.bind(window);
  const response = await fetchFn(url, { ...(settings.init ?? {}), method: 'POST', body: text, headers: headers(settings) });
  let answer = null;
  try {
    answer = await response.json();
  } catch {
    answer = null;
  }
  if (response.status === 404) {
    throw new Error('the embias-widgets server extension is not running in this Jupyter server '
      + '(`jupyter server extension list` names it; `pip install embias-widgets` enables it)');
  }
  if (!response.ok || !Array.isArray(answer?.page)) {
    throw new Error(answer?.message ?? `the server answered ${response.status} ${response.statusText}`);
  }
  return answer.page;
}

/** The page as one element, in the ReportViewer widget's root classes (its CSS, the theme's colours). */
export function renderPage(blocks) {
  const root = document.createElement('article');
  root.className = 'embias-widget embias-report-viewer embias-report';
  for (const b of blocks) root.append(block(b));
  return root;
}

/** The message shown in place of a report the viewer cannot read. */
export function renderError(message) {
  const root = document.createElement('article');
  root.className = 'embias-widget embias-report-viewer embias-report embias-report-error';
  const title = document.createElement('h1');
  title.className = 'rv-h1';
  title.textContent = 'This file cannot be shown as a report';
  const why = document.createElement('p');
  why.textContent = message;
  root.append(title, why);
  return root;
}
