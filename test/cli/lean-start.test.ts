import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEAMD_BIN } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** Node's builtins a command loaded, read from its own process at exit (Node's moduleLoadList). */
function builtinsLoadedBy(dir: string, args: readonly string[], dirFirst = false): string[] {
  const list = path.join(dir, `loaded-${args[0]}.json`);
  const preload = path.join(dir, 'record-loads.cjs');
  fs.writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, JSON.stringify(process.moduleLoadList)));\n`);
  const dirOption = ['--dir', path.join(dir, '.team')];
  execFileSync(process.execPath, ['-r', preload, TEAMD_BIN, ...(dirFirst ? [...dirOption, ...args] : [...args, ...dirOption])], { stdio: 'ignore' });
  const loaded = JSON.parse(fs.readFileSync(list, 'utf8')) as string[];
  return loaded.filter((entry) => entry.startsWith('NativeModule ')).map((entry) => entry.slice('NativeModule '.length));
}

// What only other commands need: processes (the daemon, git, bash), HTTP and TLS (the model, MCP),
// the terminal (lead, watch), compression; and pino's worker thread, for a command that logs nothing.
const NEVER = ['child_process', 'http', 'https', 'tls', 'zlib', 'readline'];

describe('a CLI command loads what it uses (docs/architecture.md, "Start-up")', () => {
  it('task list, status and send load none of what only other commands need; the read-only ones not pino', () => {
    const dir = makeTempDir();
    execFileSync(process.execPath, [TEAMD_BIN, 'task', 'add', 'first', '--dir', path.join(dir, '.team')], { stdio: 'ignore' });
    for (const args of [
      ['task', 'list'],
      ['status', '--json'],
      ['send', 'lead', 'hello'],
    ]) {
      const loaded = builtinsLoadedBy(dir, args);
      expect(loaded, args.join(' ')).toContain('fs');
      for (const name of NEVER) expect(loaded, `${args.join(' ')} loaded ${name}`).not.toContain(name);
      if (args[0] !== 'send') expect(loaded, `${args.join(' ')} loaded pino's worker_threads`).not.toContain('worker_threads');
      // graceful-fs (proper-lockfile's) is not in the bundles; signal-exit's assert is a stand-in (src/platform/build/stand-ins.ts).
      if (args[0] !== 'send') expect(loaded, `${args.join(' ')} loaded assert`).not.toContain('assert');
    }
    // task list writes with write(2) (src/platform/fd-writer.ts): no stream is made, so none of Node's stream modules load.
    const list = builtinsLoadedBy(dir, ['task', 'list']);
    for (const name of ['stream', 'net', 'tty', 'internal/fs/sync_write_stream']) expect(list, `task list loaded ${name}`).not.toContain(name);
    // send logs to logs/cli.log: pino is loaded there, and the message is delivered.
    expect(fs.readFileSync(path.join(dir, '.team/inbox/lead.jsonl'), 'utf8')).toContain('hello');
  });

  it('the same with the program options before the command, for the version, and for help on one command', () => {
    const dir = makeTempDir();
    execFileSync(process.execPath, [TEAMD_BIN, 'task', 'add', 'first', '--dir', path.join(dir, '.team')], { stdio: 'ignore' });
    for (const args of [['task', 'list'], ['--json', 'status'], ['--version'], ['-V'], ['help', 'task']]) {
      const loaded = builtinsLoadedBy(dir, args, true);
      for (const name of NEVER) expect(loaded, `teamd --dir D ${args.join(' ')} loaded ${name}`).not.toContain(name);
    }
    // A command line that names no command still gets every one: the help lists them all.
    expect(builtinsLoadedBy(dir, ['--help'], true)).toContain('child_process');
  });
});
