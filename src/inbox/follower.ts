import path from 'node:path';
import type { Logger } from '../logger.js';
import type { StatePaths } from '../paths.js';
import { Doorbell } from '../watch/doorbell.js';
import { readInboxFrom } from './inbox-file.js';
import type { SkippedLine } from './inbox-parser.js';
import type { Message } from './message.js';

/** Streams an inbox from an offset as lines complete, woken by the file watcher: `inbox --follow`. */
export class InboxFollower {
  private readonly stopper = new AbortController();

  private constructor(
    private readonly file: string,
    private offset: number,
    private readonly bell: Doorbell,
  ) {}

  static async open(options: { paths: StatePaths; file: string; from: number; logger: Logger }): Promise<InboxFollower> {
    const bell = await Doorbell.open({
      dirs: [options.paths.inboxDir],
      accept: (changed) => path.resolve(changed) === path.resolve(options.file),
      logger: options.logger,
    });
    return new InboxFollower(options.file, options.from, bell);
  }

  async run(onMessage: (message: Message) => void, onSkipped: (line: SkippedLine) => void): Promise<void> {
    try {
      while (!this.stopper.signal.aborted) {
        const read = readInboxFrom(this.file, this.offset);
        for (const line of read.skipped) onSkipped(line);
        for (const { message } of read.messages) onMessage(message);
        this.offset = read.end;
        await this.bell.wait(this.stopper.signal);
      }
    } finally {
      await this.bell.close();
    }
  }

  stop(): void {
    this.stopper.abort();
  }
}
