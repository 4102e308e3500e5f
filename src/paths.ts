import path from 'node:path';

/** Every path teamd uses, derived from one state folder. Nothing else builds paths by hand. */
export interface StatePaths {
  readonly root: string;
  readonly config: string;
  /** Live tasks: pending and in progress. Claimers scan only this folder. */
  readonly tasksDir: string;
  /** Finished tasks (completed, failed, cancelled), moved out of the folder claimers scan. */
  readonly doneDir: string;
  /** What each finished task's status was when it was moved to doneDir, and which file that was (store/files/done-index.ts). */
  readonly doneIndex: string;
  /** The owner index: `owners/<name>/<id>`, one empty file per task in progress (store/files/owner-index.ts). */
  readonly ownersDir: string;
  /** Lock target guarding id allocation and dependency edits across the whole board. */
  readonly boardLock: string;
  /** High-water mark of allocated task ids, so ids are never reused. */
  readonly taskCounter: string;
  /** Revision tokens: `<id>.<rev>` created exclusively, one per task version (see store/files/revision-tokens.ts). */
  readonly revisionsDir: string;
  readonly inboxDir: string;
  readonly cursorsDir: string;
  readonly sessionsDir: string;
  readonly logsDir: string;
  readonly runDir: string;
  readonly daemonPid: string;
  /** The goal teamd run handed the lead agent last: `{goalId, goal, startedAt, userOffset, leadOffset}` (lead/run-record.ts). */
  readonly runGoal: string;
  readonly daemonSocket: string;
  /** Its mtime: when the daemon last looked at the board for ready work (store/files/look-marker.ts). */
  readonly boardLooked: string;
  /** Signs protocol messages that grant something (store/protocol-key.ts). */
  readonly protocolKey: string;
  /** How far the daemon has read the mailboxes for plan and permission requests, and which wait (inbox/request-scan.ts). */
  readonly requestScan: string;
  /** The notices found and how their sending to each webhook ended (notify/notice-ledger.ts). */
  readonly notifications: string;
  /** Where a live task is; a finished one is at `doneTaskFile`. Every reader looks in both (store/files/task-store.ts). */
  readonly taskFile: (id: number) => string;
  readonly doneTaskFile: (id: number) => string;
  readonly ownerMarker: (name: string, id: number) => string;
  readonly revisionToken: (id: number, rev: number) => string;
  readonly inboxFile: (name: string) => string;
  readonly cursorFile: (name: string) => string;
  /** The lead agent's read position in lead.jsonl: its own, beside the person's (`teamd inbox lead --unread`). */
  readonly leadAgentCursor: string;
  readonly sessionFile: (name: string) => string;
  /** A teammate's plan for its current task (todo_write), for teamd status. */
  readonly todoFile: (name: string) => string;
  /** A teammate's MCP servers, their state and tools, for teamd mcp list. */
  readonly mcpStateFile: (name: string) => string;
  /** A tool output too large for the conversation, kept whole for read_file. */
  readonly outputFile: (name: string, callId: string) => string;
  readonly logFile: (name: string) => string;
  /** A teammate's background jobs: `<id>.json` (the record) and `<id>.log` (the output), under `jobs/<name>/`. */
  readonly jobsDir: string;
  readonly jobDir: (name: string) => string;
  /** Long-term memory: `MEMORY.md` (the team's) and `<name>.md` (a teammate's own), both in their system prompts. */
  readonly memoryDir: string;
  /** Skills of this workspace: `skills/<name>/SKILL.md`. */
  readonly skillsDir: string;
  /** The schedule: every cron and one-shot job (cron/schedule-store.ts). */
  readonly cronFile: string;
}

export const TASK_FILE_PATTERN = /^task_(\d+)\.json$/;

export function resolveStateDir(options: { dir?: string | undefined; env?: NodeJS.ProcessEnv; cwd?: string }): string {
  const cwd = options.cwd ?? process.cwd();
  // An empty TEAMD_DIR counts as unset rather than meaning the current folder.
  const chosen = options.dir ?? (options.env?.TEAMD_DIR || '.team');
  return path.resolve(cwd, chosen);
}

export function statePaths(stateDir: string): StatePaths {
  const root = path.resolve(stateDir);
  const tasksDir = path.join(root, 'tasks');
  const doneDir = path.join(tasksDir, 'done');
  const ownersDir = path.join(tasksDir, 'owners');
  const inboxDir = path.join(root, 'inbox');
  const cursorsDir = path.join(root, 'cursors');
  const sessionsDir = path.join(root, 'sessions');
  const logsDir = path.join(root, 'logs');
  const runDir = path.join(root, 'run');
  return {
    root,
    config: path.join(root, 'config.json'),
    tasksDir,
    doneDir,
    doneIndex: path.join(doneDir, '.index.jsonl'),
    ownersDir,
    boardLock: path.join(tasksDir, '.board'),
    taskCounter: path.join(tasksDir, '.next-id'),
    revisionsDir: path.join(tasksDir, '.revs'),
    inboxDir,
    cursorsDir,
    sessionsDir,
    logsDir,
    runDir,
    daemonPid: path.join(runDir, 'daemon.pid'),
    runGoal: path.join(runDir, 'goal.json'),
    daemonSocket: path.join(runDir, 'daemon.sock'),
    boardLooked: path.join(runDir, 'board-looked'),
    protocolKey: path.join(runDir, 'protocol.key'),
    requestScan: path.join(runDir, 'requests.json'),
    notifications: path.join(runDir, 'notifications.jsonl'),
    // Hot on the claim path: ids are integers, so plain concatenation gives what path.join would.
    taskFile: (id) => `${tasksDir}${path.sep}task_${id}.json`,
    doneTaskFile: (id) => `${doneDir}${path.sep}task_${id}.json`,
    ownerMarker: (name, id) => path.join(ownersDir, name, String(id)),
    revisionToken: (id, rev) => `${tasksDir}${path.sep}.revs${path.sep}${id}.${rev}`,
    inboxFile: (name) => path.join(inboxDir, `${name}.jsonl`),
    cursorFile: (name) => path.join(cursorsDir, `${name}.json`),
    leadAgentCursor: path.join(cursorsDir, 'lead.agent.json'),
    sessionFile: (name) => path.join(sessionsDir, `${name}.jsonl`),
    todoFile: (name) => path.join(sessionsDir, `${name}.todos.json`),
    mcpStateFile: (name) => path.join(sessionsDir, `${name}.mcp.json`),
    outputFile: (name, callId) => path.join(root, 'outputs', name, `${callId}.txt`),
    logFile: (name) => path.join(logsDir, `${name}.log`),
    jobsDir: path.join(root, 'jobs'),
    memoryDir: path.join(root, 'memory'),
    skillsDir: path.join(root, 'skills'),
    jobDir: (name) => path.join(root, 'jobs', name),
    cronFile: path.join(root, 'cron.json'),
  };
}

/** The folders teamd writes files into (for sweeps of what dead writers left). */
export function stateFolders(paths: StatePaths): string[] {
  return [paths.root, paths.tasksDir, paths.doneDir, paths.inboxDir, paths.cursorsDir, paths.sessionsDir, paths.runDir];
}
