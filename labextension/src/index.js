/**
 * embias-widgets in JupyterLab.
 *
 * - ``embias-widgets:launcher``: a Launcher section with a card per widget; a card writes a notebook named
 *   after it (in the Launcher's folder, or beside a report's output folder: ./notebook.js) whose one cell
 *   it runs (``{run: false}`` only opens it).
 * - ``embias-widgets:report-viewer``: opens ``report.json`` / ``*.report.json``
 *   (double-click in the file browser) as the page report.html shows (blocks
 *   from the server extension, drawn by js/lib/report_blocks.js). Other JSON
 *   files keep their usual editor, and "Open With > Editor" stays available
 *   for report files.
 */

import { ILayoutRestorer } from '@jupyterlab/application';
import { WidgetTracker } from '@jupyterlab/apputils';
import { ILauncher } from '@jupyterlab/launcher';
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { LabIcon } from '@jupyterlab/ui-components';

import { CARDS, CATEGORY, ICONS } from './cards.js';
import { cardNotebook, freeNotebookPath, notebookFolder } from './notebook.js';
import { FACTORY, FILE_TYPE, ReportViewerFactory } from './viewer.js';

const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">
  <g class="jp-icon3" fill="#616161">
    <rect x="3" y="13" width="4" height="8" rx="1"/><rect x="10" y="8" width="4" height="13" rx="1"/>
    <rect x="17" y="3" width="4" height="18" rx="1"/>
  </g>
</svg>`;

export const embiasIcon = new LabIcon({ name: 'embias-widgets:icon', svgstr: ICON_SVG });

const launcherPlugin = {
  id: 'embias-widgets:launcher',
  description: 'Launcher cards that write and run a notebook per embias widget.',
  autoStart: true,
  requires: [],
  optional: [ILauncher, IDefaultFileBrowser],
  activate: (app, launcher, browser) => {
    for (const [rank, card] of CARDS.entries()) {
      const command = `embias-widgets:new-${card.id}`;
      const icon = ICONS[card.id] ? new LabIcon({ name: `embias-widgets:${card.id}`, svgstr: ICONS[card.id] }) : embiasIcon;
      app.commands.addCommand(command, {
        label: card.label,
        caption: card.caption,
        icon,
        execute: async (args) => {
          const contents = app.serviceManager.contents;
          const folder = await notebookFolder(contents, args?.cwd ?? browser?.model.path ?? '');
          // the default kernel by name: without one, a new notebook asks which kernel to start
          await app.serviceManager.kernelspecs.ready;
          const specs = app.serviceManager.kernelspecs.specs;
          const kernelName = args?.kernelName ?? specs?.default;
          const path = await freeNotebookPath(contents, folder, card.id);
          await contents.save(path, { type: 'notebook', format: 'json',
                                      content: cardNotebook(card.code, { name: kernelName, ...specs?.kernelspecs?.[kernelName] }) });
          const panel = await app.commands.execute('docmanager:open', { path, factory: 'Notebook', kernel: { name: kernelName } });
          await panel.context.ready;
          panel.content.activeCellIndex = 0;
          if (args?.run !== false) {  // the card's cell runs, as a person who picked the card expects
            await panel.sessionContext.ready;
            app.shell.activateById(panel.id);
            await app.commands.execute('notebook:run-all-cells');
          }
          return panel;
        },
      });
      if (launcher) launcher.add({ command, category: CATEGORY, rank });
    }
  },
};

const viewerPlugin = {
  id: 'embias-widgets:report-viewer',
  description: 'Open report.json (what `embias report` writes) as the rendered report.',
  autoStart: true,
  requires: [],
  optional: [ILayoutRestorer],
  activate: (app, restorer) => {
    app.docRegistry.addFileType({
      name: FILE_TYPE,
      displayName: 'embias report',
      extensions: [],  // matched by name only, so other .json files keep their default
      pattern: '(^|\\.)report\\.json$',
      mimeTypes: ['application/json'],
      contentType: 'file',
      fileFormat: 'text',
      icon: embiasIcon,
    });
    const factory = new ReportViewerFactory({
      name: FACTORY,
      label: 'embias report',
      fileTypes: [FILE_TYPE],
      defaultFor: [FILE_TYPE],
      readOnly: true,
    }, app.serviceManager.serverSettings);
    const tracker = new WidgetTracker({ namespace: 'embias-report' });
    factory.widgetCreated.connect((_, widget) => {
      widget.title.icon = embiasIcon;
      void tracker.add(widget);
    });
    app.docRegistry.addWidgetFactory(factory);
    if (restorer) {
      void restorer.restore(tracker, {
        command: 'docmanager:open',
        args: (w) => ({ path: w.context.path, factory: FACTORY }),
        name: (w) => w.context.path,
      });
    }
  },
};

export default [launcherPlugin, viewerPlugin];
