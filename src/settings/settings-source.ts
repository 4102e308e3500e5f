import fs from 'node:fs';
import type { Logger } from '../log/logger.js';
import { combineChain, DEFAULT_SETTINGS, readSettingsFile, settingsWarnings, type Settings } from './settings.js';

/**
 * The settings in force, re-read when a settings file changes (checked by its size and mtime
 * before each use: no restart, no watcher). A file that does not parse leaves the previous
 * settings in force, and the error is logged once per version of the file.
 */
export class SettingsSource {
  private settings: Settings = DEFAULT_SETTINGS;
  private seen = '';
  private reported = '';

  constructor(
    /** The files in order of precedence, lowest first (settings-chain.ts): a later one's mode wins, lists add up. */
    private readonly files: readonly string[],
    private readonly logger: Logger,
  ) {}

  current(): Settings {
    const version = this.files.map(stamp).join('|');
    if (version === this.seen) return this.settings;
    try {
      const parsed = this.files.map((file) => readSettingsFile(file));
      this.settings = combineChain(parsed);
      this.seen = version;
      this.logger.info({ files: this.files.filter((_, at) => parsed[at] !== null) }, 'settings loaded');
      // What the files say that teamd does not do: once per version of the files.
      for (const [at, file] of this.files.entries())
        for (const warning of parsed[at] ? settingsWarnings(parsed[at]) : []) this.logger.warn({ file, warning }, 'settings: a part of the file has no effect');
    } catch (error) {
      if (this.reported !== version) {
        this.reported = version;
        this.logger.error({ err: error }, 'settings file refused; the previous settings stay in force');
      }
    }
    return this.settings;
  }
}

function stamp(file: string): string {
  try {
    const stat = fs.statSync(file);
    return `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
  } catch {
    return 'absent';
  }
}
