/** The document widget that shows a report file rendered, re-rendering when the file changes. */

import { ABCWidgetFactory, DocumentWidget } from '@jupyterlab/docregistry';
import { Widget } from '@lumino/widgets';

import { renderError, renderReport } from './report.js';

export const FILE_TYPE = 'embias-report';
export const FACTORY = 'embias report';

/** The rendered report of one file: the file's text parsed and drawn, or one line saying why not. */
export class ReportView extends Widget {
  constructor(context) {
    super();
    this.addClass('embias-report-view');
    this._context = context;
    void context.ready.then(() => {
      this.update();
      context.model.contentChanged.connect(() => this.update(), this);
    });
  }

  onUpdateRequest() {
    const text = this._context.model.toString();
    let shown;
    try {
      shown = renderReport(JSON.parse(text));
    } catch (err) {
      const why = err instanceof SyntaxError ? `not valid JSON: ${err.message}` : String(err.message ?? err);
      shown = renderError(`${this._context.path}: ${why}`);
    }
    this.node.replaceChildren(shown);
  }
}

/** Makes a ``ReportView`` inside a ``DocumentWidget`` for each opened report file. */
export class ReportViewerFactory extends ABCWidgetFactory {
  createNewWidget(context) {
    const widget = new DocumentWidget({ content: new ReportView(context), context });
    widget.addClass('embias-report-document');
    return widget;
  }
}
