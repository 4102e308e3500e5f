import fs from 'node:fs';
import path from 'node:path';
import { TeamdError } from '../errors.js';
import { PACKAGE_ROOT } from '../cli/locations.js';

/** The page's three files, read once when the server starts: they are small (the page weighs what `npm run bench -- ui` prints). */
export interface PageAssets {
  readonly html: string;
  readonly script: string;
  readonly style: string;
}

export const PAGE_FILES = ['index.html', 'app.js', 'app.css'] as const;

/** Where the page's files are: beside the bundle (an installed package; the build copies them), else in src/ (a checkout before its first build). */
export function pageFolder(root = PACKAGE_ROOT): string {
  const candidates = [path.join(root, 'dist', 'bundle', 'ui'), path.join(root, 'src', 'ui', 'page')];
  const found = candidates.find((dir) => PAGE_FILES.every((file) => fs.existsSync(path.join(dir, file))));
  if (!found) throw new TeamdError('IO', `the dashboard's page is missing from ${candidates[0]}: run npm run build (or reinstall teamd)`);
  return found;
}

export function readPageAssets(dir = pageFolder()): PageAssets {
  const read = (file: string): string => fs.readFileSync(path.join(dir, file), 'utf8');
  return { html: read('index.html'), script: read('app.js'), style: read('app.css') };
}
