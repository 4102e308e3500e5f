import { TeamdError } from '../errors.js';
import { LEAD } from '../contracts/roster.js';
import type { TeamStore } from '../contracts/team-store.js';
import type { StatePaths } from '../paths.js';
import { uiAnswerSchema, uiMergeSchema, uiSendSchema } from '../contracts/ui-protocol.js';
import { pendingPlanRequests, scanFileOf } from '../inbox/request-scan.js';
import { mergeTask } from '../worktree/merge-task.js';
import { answerWithRule, describeAnswered } from '../cli/answer-with-rule.js';

export interface UiActionContext {
  readonly paths: StatePaths;
  readonly store: TeamStore;
}

type Schema<T> = {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: PropertyKey[]; message: string }[] } };
};

function parse<T>(schema: Schema<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new TeamdError('INVALID_INPUT', `the request's ${issue?.path.join('.') || 'body'} is not valid: ${issue?.message ?? 'unknown problem'}`);
}

/**
 * What the page may change, each through the same code as its command: an answer to a waiting
 * request (`teamd approve` / `reject`, signed by answerRequest), a message (`teamd send`), a
 * merge (`teamd merge`). Each returns one line for the page to show.
 */
export const UI_ACTIONS: Readonly<Record<string, (context: UiActionContext, body: unknown) => Promise<string>>> = {
  answer: async ({ paths, store }, body) => {
    const answer = parse(uiAnswerSchema, body);
    const waiting = await pendingPlanRequests(store.mail, store.board, paths, scanFileOf(store, paths));
    const request = waiting.find((candidate) => candidate.requestId === answer.requestId);
    if (!request) throw new TeamdError('INVALID_TRANSITION', 'this request waits no more: it was answered, or its wait ended; the page shows what waits now');
    if (!answer.approve && !answer.feedback?.trim())
      throw new TeamdError('USAGE', 'say why it is rejected: the teammate reads the reason and tries another way');
    const context = { paths, store, board: store.board, mailbox: store.mail };
    const answered = await answerWithRule(context, request, { approve: answer.approve, feedback: answer.feedback ?? '', always: answer.always === true });
    return describeAnswered(context, answered).trim();
  },
  send: async ({ store }, body) => {
    const { to, content } = parse(uiSendSchema, body);
    if (content.trim() === '') throw new TeamdError('USAGE', 'the message is empty: nothing to send');
    const recipients = await store.mail.recipients();
    if (!recipients.includes(to)) throw new TeamdError('UNKNOWN_RECIPIENT', `nobody named "${to}" on the team: recipients are ${recipients.join(', ')}`);
    const message = await store.mail.send({ from: LEAD, to, type: 'message', content });
    return `sent to ${message.to}`;
  },
  merge: async ({ paths, store }, body) => {
    const { task } = parse(uiMergeSchema, body);
    const merged = await mergeTask(store.board, paths, task);
    return `merged ${merged.branch} into ${merged.into} (${merged.fastForward ? 'fast-forward' : 'merge commit'} ${merged.commit.slice(0, 12)})`;
  },
};
