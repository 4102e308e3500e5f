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

  constructor(private readonly file: string) {}

  /** The next scripted step for a teammate, or null when its script is used up (or absent). */
  next(teammate: string): ScriptStep | null {
    let raw: string;
    try {
      raw = fs.readFileSync(this.file, 'utf8');
    } catch {
      return null;
    }
    const parsed = scriptSchema.safeParse(JSON.parse(raw));
    if (!parsed.success) throw new Error(`invalid offline script ${this.file}: ${parsed.error.message}`);
    const steps = parsed.data[teammate] ?? [];
    const at = this.consumed.get(teammate) ?? 0;
    if (at >= steps.length) return null;
    this.consumed.set(teammate, at + 1);
    return steps[at]!;
  }
}
