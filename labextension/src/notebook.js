/**
 * Where and how a Launcher card's notebook is made: a file named after the card (``weat-explorer.ipynb``, then
 * ``weat-explorer-2.ipynb``, ...) holding the card's code as its first cell, in the Launcher's folder, or beside
 * it when that folder is a report's output (``embias report`` writes report.json, report.html, figures/ and
 * sections/ there, and a notebook among them would be mistaken for part of the report).
 */

/** A folder that holds a report's output: its report.json, or its figures/ and sections/ folders. */
export async function isReportFolder(contents, path) {
  let listing;
  try {
    listing = await contents.get(path, { content: true });
  } catch {
    return false;
  }
  if (listing.type !== 'directory' || !Array.isArray(listing.content)) return false;
  const names = new Set(listing.content.map((item) => item.name));
  return names.has('report.json') || (names.has('figures') && names.has('sections'));
}

/** The folder a card's notebook goes to: ``cwd``, or the folder holding the report folder ``cwd`` is in (or is). */
export async function notebookFolder(contents, cwd) {
  const parts = String(cwd ?? '').split('/').filter(Boolean);
  for (let n = parts.length; n > 0 && n >= parts.length - 1; n -= 1) {  // the folder itself and its parent
    if (await isReportFolder(contents, parts.slice(0, n).join('/'))) return parts.slice(0, n - 1).join('/');
  }
  return parts.join('/');
}

/** ``folder/stem.ipynb``, or ``folder/stem-2.ipynb`` ... when that name is taken. */
export async function freeNotebookPath(contents, folder, stem) {
  const listing = await contents.get(folder, { content: true });
  const taken = new Set((listing.content ?? []).map((item) => item.name));
  let name = `${stem}.ipynb`;
  for (let i = 2; taken.has(name); i += 1) name = `${stem}-${i}.ipynb`;
  return folder ? `${folder}/${name}` : name;
}

/** The notebook (nbformat 4) a card writes: its code as the one cell, the kernel named in the metadata. */
export function cardNotebook(code, kernel) {
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { kernelspec: { name: kernel.name, display_name: kernel.display_name ?? kernel.name, language: kernel.language ?? 'python' } },
    cells: [{ cell_type: 'code', id: 'embias-card', metadata: {}, source: code, outputs: [], execution_count: null }],
  };
}
