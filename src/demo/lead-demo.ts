import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { statePaths, type StatePaths } from '../paths.js';
import type { TeamdPlan } from '../lead/teamd-plan.js';
import { DEMO_TASKS } from './demo-project.js';
import { DEMO_SETTINGS, DEMO_TEAM } from './run-demo.js';

/** A fresh workspace for the lead demo: the offline model, no idle timeout, the demo's permission rules. */
export function prepareLeadDemo(): StatePaths {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-lead-demo-'));
  const paths = statePaths(path.join(workspace, '.team'));
  fs.mkdirSync(paths.root, { mode: 0o700 });
  fs.writeFileSync(paths.config, `${JSON.stringify({ members: [], settings: { model: 'offline', idleTimeoutMs: 0, sandbox: 'preferred' } }, null, 2)}\n`);
  fs.writeFileSync(path.join(paths.root, 'settings.json'), `${JSON.stringify(DEMO_SETTINGS, null, 2)}\n`);
  return paths;
}

/** The calc project as one goal: the team and the demo's tasks in a teamd-plan block, which the offline lead carries out. */
export function leadDemoGoal(): string {
  const plan: TeamdPlan = {
    team: DEMO_TEAM.map((name) => ({ name, role: 'coder' })),
    tasks: DEMO_TASKS.map((task) => ({ id: task.key, subject: task.subject, sh: shellOf(task.description ?? ''), blockedBy: [...(task.after ?? [])] })),
  };
  return `Build the calc project: a library, its command line, tests that pass, and a release tarball.\n\`\`\`teamd-plan\n${JSON.stringify(plan, null, 2)}\n\`\`\`\n`;
}

function shellOf(description: string): string {
  return /```sh\n([\s\S]*?)```/.exec(description)?.[1]?.trim() ?? '';
}
