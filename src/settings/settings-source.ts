import fs from 'node:fs';
import type { Logger } from '../log/logger.js';
import { combineSettings, DEFAULT_SETTINGS, readSettingsFile, settingsWarnings, type Settings } from './settings.js';

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
    private readonly files: { readonly team: string; readonly role: string | null },
    private readonly logger: Logger,
  ) {}

  current(): Settings {
    const version = [this.files.team, this.files.role].map((file) => (file ? stamp(file) : '')).join('|');
    if (version === this.seen) return this.settings;
    try {
      const team = readSettingsFile(this.files.team);
      const role = this.files.role ? readSettingsFile(this.files.role) : null;
      this.settings = combineSettings(team, role);
      this.seen = version;
      this.logger.info({ files: this.files }, 'settings loaded');
      // What the files say that teamd does not do: once per version of the files.
      for (const [file, parsed] of [
        [this.files.team, team],
        [this.files.role, role],
      ] as const)
        for (const warning of parsed ? settingsWarnings(parsed) : []) this.logger.warn({ file, warning }, 'settings: a part of the file has no effect');
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
