/**
 * The document widget that shows a report file rendered, re-rendering when the file changes.
 *
 * It shows exactly what report.html shows: the Jupyter server builds the page's blocks from the file's text
 * (embias_widgets/widgets/lab_server.py calls analysis/publish/page.py, the function report.html is drawn
 * from), and they are drawn here by the same JS as the ReportViewer widget (js/lib/report_blocks.js, with
 * js/lib/format.js and js/lib/safe_svg.js), imported from the package's js/lib rather than copied.
 */

import { ABCWidgetFactory, DocumentWidget } from '@jupyterlab/docregistry';
import { Widget } from '@lumino/widgets';

import { renderError, renderPage, requestPage } from './report.js';

export const FILE_TYPE = 'embias-report';
export const FACTORY = 'embias report';

/**
 * The rendered report of one file: its page blocks drawn, or one line saying why not.
 *
 * The server is asked once the file has loaded and again only when its text changes: never from
 * ``onUpdateRequest``, which the layout sends on every resize and before the file has loaded (an empty text, the
 * server's "400 not valid JSON" in its log).
 */
export class ReportView extends Widget {
  constructor(context, serverSettings) {
    super();
    this.addClass('embias-report-view');
    this._context = context;
    this._settings = serverSettings;
    this._asked = 0;
    this._text = null;  // the text last sent to the server
    void context.ready.then(() => {
      this.render();
      context.model.contentChanged.connect(() => this.render(), this);
    });
  }

  /** Draw the file's page (only the newest answer is drawn); nothing to do when its text is what was drawn. */
  render() {
    const text = this._context.model.toString();
    if (text === this._text) return;
    this._text = text;
    const asked = ++this._asked;
    void requestPage(this._settings, text).then(
      (blocks) => renderPage(blocks),
      (err) => renderError(`${this._context.path}: ${String(err?.message ?? err)}`),
    ).then((shown) => {
      if (asked === this._asked) this.node.replaceChildren(shown);
    });
  }
}

/** Makes a ``ReportView`` inside a ``DocumentWidget`` for each opened report file. */
export class ReportViewerFactory extends ABCWidgetFactory {
  constructor(options, serverSettings) {
    super(options);
    this._settings = serverSettings;
  }

  createNewWidget(context) {
    const widget = new DocumentWidget({ content: new ReportView(context, this._settings), context });
    widget.addClass('embias-report-document');
    return widget;
  }
}
