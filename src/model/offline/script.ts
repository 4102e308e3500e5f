import fs from 'node:fs';
import * as z from 'zod';

const repeat = {
  /** Answer this way this many times in a row (default once). */
  times: z.number().int().positive().max(10_000).optional(),
  /** Or: keep answering this way until this long after its first use (an outage of a set length). */
  forMs: z.number().int().positive().max(3_600_000).optional(),
};
const toolCall = z.strictObject({ name: z.string().min(1).max(128), input: z.record(z.string(), z.unknown()).default({}) });

/**
 * Scripted turns for tests, per teammate, consumed in order before the policy takes over:
 * `<state>/offline-script.json` = {"alice": [{"status": 429}, {"stopReason": "refusal"}, ...]}.
 * Each step is one answer (or one failure) of the endpoint; see docs/teammate.md#models.
 */
export const scriptStepSchema = z.union([
  z.strictObject({ status: z.literal(429), retryAfterSeconds: z.number().nonnegative().max(600).optional(), ...repeat }),
  z.strictObject({ status: z.union([z.literal(401), z.literal(403), z.literal(404), z.literal(500), z.literal(529)]), ...repeat }),
  z.strictObject({ status: z.literal(400), promptTooLong: z.literal(true), ...repeat }),
  /** The request's bytes over the API's limit (the API's 413 request_too_large). */
  z.strictObject({ status: z.literal(413), ...repeat }),
  /** The connection is closed before any answer. */
  z.strictObject({ drop: z.literal(true), ...repeat }),
  /** The answer starts streaming, then no byte more: the client's stall timeout must end it. */
  z.strictObject({ stall: z.literal(true), ...repeat }),
  /** The answer starts streaming (with `text`, if given), then an error event ends it: how the API reports overload mid-answer. */
  z.strictObject({ streamError: z.enum(['overloaded_error', 'api_error']), text: z.string().min(1).optional(), ...repeat }),
  /** The answer starts streaming (with `text`, if given), then the connection is reset, or the stream ends without message_stop. */
  z.strictObject({ cutMidAnswer: z.enum(['reset', 'end']), text: z.string().min(1).optional(), ...repeat }),
  z.strictObject({ stopReason: z.enum(['end_turn', 'max_tokens', 'pause_turn', 'refusal']), text: z.string().optional(), ...repeat }),
  /** The output limit is hit inside a tool call: its input JSON arrives cut off. */
  z.strictObject({ stopReason: z.literal('max_tokens'), truncatedToolUse: toolCall, ...repeat }),
  /** Any tool call, as the model would make it. */
  z.strictObject({ toolUse: toolCall, text: z.string().optional(), ...repeat }),
  /** Several tool calls in one answer (parallel helpers, say). */
  z.strictObject({ toolUses: z.array(toolCall).min(2).max(8), ...repeat }),
]);
export type ScriptStep = z.infer<typeof scriptStepSchema>;

const scriptSchema = z.record(z.string(), z.array(scriptStepSchema));

interface Cursor {
  index: number;
  used: number;
  firstUseAt: number;
}

export class OfflineScript {
  private readonly cursors = new Map<string, Cursor>();
  private reported: string | null = null;
  private readonly problems = new Set<string>();

  /** `onInvalid` hears, once per damaged version, why the script file is ignored. */
  constructor(
    private readonly file: string,
    private readonly onInvalid: (message: string) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  /** The next scripted step for a teammate, or null when its script is used up, absent or invalid (then the policy answers). */
  next(teammate: string): ScriptStep | null {
    const steps = this.read()?.[teammate] ?? [];
    const cursor = this.cursors.get(teammate) ?? { index: 0, used: 0, firstUseAt: 0 };
    this.cursors.set(teammate, cursor);
    // Bounded: each pass either answers or moves the cursor past one step.
    while (cursor.index < steps.length) {
      const step = steps[cursor.index]!;
      const now = this.now();
      if (cursor.used === 0) cursor.firstUseAt = now;
      const active = step.forMs !== undefined ? now - cursor.firstUseAt < step.forMs : cursor.used < (step.times ?? 1);
      if (active) {
        cursor.used++;
        return step;
      }
      cursor.index++;
      cursor.used = 0;
    }
    return null;
  }

  /** A step that cannot be played as written: said once per distinct problem, naming the file. */
  report(problem: string): void {
    if (this.problems.has(problem)) return;
    this.problems.add(problem);
    this.onInvalid(`${this.file}: ${problem}. Fix it (see docs/teammate.md#models)`);
  }

  private read(): Record<string, ScriptStep[]> | null {
    let raw: string;
    try {
      raw = fs.readFileSync(this.file, 'utf8');
    } catch {
      return null;
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (error) {
      return this.invalid(raw, `not JSON (${(error as Error).message})`);
    }
    const parsed = scriptSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return this.invalid(raw, `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
    }
    this.reported = null;
    return parsed.data;
  }

  private invalid(raw: string, why: string): null {
    if (this.reported !== raw) {
      this.reported = raw;
      this.onInvalid(`${this.file} is ignored: ${why}. Fix it (see docs/teammate.md#models) or remove it; the offline policy answers meanwhile`);
    }
    return null;
  }
}
