import { describe, expect, it } from 'vitest';
import { readCommandLine } from '../../../src/cli/start/command-names.js';

describe('readCommandLine: what a command line needs loaded, read as commander will read it', () => {
  it('finds the command after the program options, whichever way --dir is given', () => {
    for (const argv of [
      ['task', 'list'],
      ['--dir', 'D', 'task', 'list'],
      ['--dir=D', 'task', 'list'],
      ['--json', '--dir', 'D', 'task'],
      // Commander gives --dir the next argument even when it looks like an option.
      ['--dir', '--json', 'task'],
    ])
      expect(readCommandLine(argv), argv.join(' ')).toEqual({ load: ['task'], role: 'task' });
  });

  it('loads no command for the version, and one for help on it', () => {
    expect(readCommandLine(['--version'])).toEqual({ load: [], role: 'version' });
    expect(readCommandLine(['--dir', 'D', '-V'])).toEqual({ load: [], role: 'version' });
    expect(readCommandLine(['help', 'status'])).toEqual({ load: ['status'], role: 'help' });
  });

  it('loads every command when none is named: help, a typo, an unknown option, a --dir with no value, nothing', () => {
    for (const argv of [[], ['--help'], ['tsk', 'list'], ['--bogus', 'task'], ['--dir'], ['--dir', 'task', 'list'], ['help']])
      expect(readCommandLine(argv), argv.join(' ')).toEqual({ load: 'all', role: 'other' });
    // Help on no command at all: main.ts refuses it (exit 2) rather than show the general help.
    expect(readCommandLine(['help', 'nothing'])).toEqual({ load: 'all', role: 'other', unknownHelp: 'nothing' });
  });
});
