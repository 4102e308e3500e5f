import fs from 'node:fs';
import path from 'node:path';

/**
 * Resolves a path given by the model inside the workspace, or returns an error text. Both the
 * lexical path and, where it exists, its real path (symlinks followed) must stay inside; the
 * state folder is off limits too (teammates use the board and message tools for it).
 */
export function resolveInWorkspace(workspace: string, requested: string): { path: string } | { error: string } {
  const root = fs.realpathSync(workspace);
  const absolute = path.resolve(root, requested);
  if (!isInside(root, absolute)) return { error: `path ${JSON.stringify(requested)} is outside the workspace ${root}` };
  let real = absolute;
  try {
    real = fs.realpathSync(absolute);
  } catch {
    // Does not exist yet: check its nearest existing parent instead.
    let parent = path.dirname(absolute);
    while (!fs.existsSync(parent)) parent = path.dirname(parent);
    real = path.join(fs.realpathSync(parent), path.relative(parent, absolute));
  }
  if (!isInside(root, real)) return { error: `path ${JSON.stringify(requested)} leads outside the workspace (through a symlink)` };
  const relative = path.relative(root, real);
  if (relative === '.team' || relative.startsWith(`.team${path.sep}`)) {
    return { error: 'the .team state folder is not for file tools: use the task and message tools' };
  }
  return { path: real };
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
