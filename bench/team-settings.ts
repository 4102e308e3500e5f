import fs from 'node:fs';
import path from 'node:path';

/** Benchmarks measure the team, not the permission layer's questions: their teammates run what their tasks say. */
export function permitAll(stateDir: string): void {
  fs.mkdirSync(stateDir, { recursive: true });
  const file = path.join(stateDir, 'settings.json');
  if (!fs.existsSync(file)) fs.writeFileSync(file, JSON.stringify({ permissions: { defaultMode: 'bypassPermissions' } }));
}
