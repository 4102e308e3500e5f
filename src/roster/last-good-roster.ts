import type { Logger } from '../log/logger.js';
import { readConfig } from './roster.js';
import { type TeamConfig } from '../contracts/roster.js';

/**
 * The roster for a process that reads it while it works (a teammate checking its budgets before
 * each model call): read afresh each time, but a file that cannot be read (damaged by hand, a
 * folder in its place) gives the roster last read whole instead of an error. The daemon moves a
 * damaged roster aside and writes its own within moments; a teammate must not die mid-task over
 * it. Logged once when it starts failing and once when it reads again.
 */
export class LastGoodRoster {
  private failing = false;

  constructor(
    private readonly file: string,
    private last: TeamConfig,
    private readonly logger: Logger,
  ) {}

  read(): TeamConfig {
    try {
      this.last = readConfig(this.file);
      if (this.failing) this.logger.info('the roster can be read again');
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.logger.warn({ err: error }, 'the roster cannot be read; going on with the one read last until it can');
      this.failing = true;
    }
    return this.last;
  }
}
