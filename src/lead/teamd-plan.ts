import * as z from 'zod';

const localId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a local id is 1 to 64 letters, digits, _ or -');

/**
 * A ```teamd-plan block in a goal (DESIGN §9): the team to spawn and the tasks to create, each
 * with a local id, its shell commands and the local ids it waits for (earlier tasks only).
 */
export const teamdPlanSchema = z
  .strictObject({
    team: z
      .array(z.strictObject({ name: z.string().min(1).max(32), role: z.string().min(1).max(64), plan: z.boolean().optional() }))
      .max(50)
      .default([]),
    tasks: z
      .array(
        z.strictObject({
          id: localId,
          subject: z.string().trim().min(1).max(200),
          sh: z
            .string()
            .max(64 * 1024)
            .default(''),
          blockedBy: z.array(localId).max(100).default([]),
        }),
      )
      .min(1, 'a plan has at least one task')
      .max(500),
  })
  .superRefine((plan, ctx) => {
    const seen = new Set<string>();
    for (const [i, task] of plan.tasks.entries()) {
      if (seen.has(task.id)) ctx.addIssue({ code: 'custom', path: ['tasks', i, 'id'], message: `the local id ${JSON.stringify(task.id)} is used twice` });
      for (const blocker of task.blockedBy)
        if (!seen.has(blocker))
          ctx.addIssue({
            code: 'custom',
            path: ['tasks', i, 'blockedBy'],
            message: `${JSON.stringify(blocker)} is not the id of an earlier task (a task waits only for tasks listed before it)`,
          });
      seen.add(task.id);
    }
    const names = new Set<string>();
    for (const [i, member] of plan.team.entries()) {
      if (names.has(member.name)) ctx.addIssue({ code: 'custom', path: ['team', i, 'name'], message: `${JSON.stringify(member.name)} is listed twice` });
      names.add(member.name);
    }
  });
export type TeamdPlan = z.infer<typeof teamdPlanSchema>;

const FENCE = /```teamd-plan[ \t]*\n([\s\S]*?)```/;

/** The plan of a goal: null when it has no ```teamd-plan block; an error saying what is wrong when the block is not a valid plan. */
export function parseTeamdPlan(goal: string): { plan: TeamdPlan } | { error: string } | null {
  const block = FENCE.exec(goal);
  if (!block) return null;
  let json: unknown;
  try {
    json = JSON.parse(block[1]!);
  } catch (error) {
    return { error: `its teamd-plan block is not valid JSON (${(error as Error).message.split('\n')[0]})` };
  }
  const parsed = teamdPlanSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.map(String).join('.');
    return { error: `its teamd-plan block is not a valid plan (${where ? `${where}: ` : ''}${issue.message})` };
  }
  return { plan: parsed.data };
}

/** A task's description: its commands in a ```sh block, as the offline teammates run them. */
export function planTaskDescription(task: TeamdPlan['tasks'][number]): string {
  return task.sh.trim() ? `\`\`\`sh\n${task.sh.trim()}\n\`\`\`` : '';
}
