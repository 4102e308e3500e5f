import * as z from './zod-mini.js';

/** One step of a teammate's plan for its current task (todo_write; the format of Claude Code's TodoWrite). */
export const todoItemSchema = z.strictObject({
  content: z.string().check(z.trim(), z.minLength(1), z.maxLength(500)),
  status: z.enum(['pending', 'in_progress', 'completed']),
  /** The step as it is being done ("Running the tests"), shown while it is in progress. */
  activeForm: z.string().check(z.trim(), z.minLength(1), z.maxLength(500)),
});
export type TodoItem = z.infer<typeof todoItemSchema>;

export const MAX_TODO_ITEMS = 50;

export const todoListSchema = z.array(todoItemSchema).check(
  z.maxLength(MAX_TODO_ITEMS),
  z.refine((items) => items.filter((item) => item.status === 'in_progress').length <= 1, { message: 'at most one item may be in_progress at a time' }),
);
