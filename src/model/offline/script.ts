import fs from 'node:fs';
import { z } from 'zod';

/**
 * Scripted turns for tests, per teammate, consumed in order before the policy takes over:
 * `<state>/offline-script.json` = {"alice": [{"status": 429}, {"stopReason": "max_tokens", "text": "..."}]}.
 */
export const scriptStepSchema = z.union([
  z.object({ status: z.union([z.literal(429), z.literal(529), z.literal(500)]) }),
  z.object({ status: z.literal(400), promptTooLong: z.literal(true) }),
  z.object({ stopReason: z.literal('max_tokens'), text: z.string() }),
  z.object({ stopReason: z.literal('end_turn'), text: z.string() }),
]);
export type ScriptStep = z.infer<typeof scriptStepSchema>;

const scriptSchema = z.record(z.string(), z.array(scriptStepSchema));

export class OfflineScript {
  private readonly consumed = new Map<string, number>();
  private reported: string | null = null;

  /** `onInvalid` hears, once per damaged version, why the script file is ignored. */
  constructor(
    private readonly file: string,
    private readonly onInvalid: (message: string) => void = () => {},
  ) {}

  /** The next scripted step for a teammate, or null when its script is used up, absent or invalid (then the policy answers). */
  next(teammate: string): ScriptStep | null {
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
    const steps = parsed.data[teammate] ?? [];
    const at = this.consumed.get(teammate) ?? 0;
    if (at >= steps.length) return null;
    this.consumed.set(teammate, at + 1);
    return steps[at]!;
  }

  private invalid(raw: string, why: string): null {
    if (this.reported !== raw) {
      this.reported = raw;
      this.onInvalid(`${this.file} is ignored: ${why}. Fix it (see docs/configuration.md) or remove it; the offline policy answers meanwhile`);
    }
    return null;
  }
}
