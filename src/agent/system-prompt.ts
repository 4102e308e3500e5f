import { PLAN_REQUIRED_MARKER } from '../contracts/directives.js';

export interface Identity {
  readonly name: string;
  readonly role: string;
  readonly team: string;
  readonly workspace: string;
  readonly prompt?: string | undefined;
  readonly planRequired: boolean;
  /** The lead agent: it plans, staffs and reviews; it does not do tasks itself. */
  readonly lead?: boolean;
}

function leadPrompt(identity: Identity): string {
  return [
    `You are the lead of the team "${identity.team}": a team of autonomous teammates working in ${identity.workspace}. The person running the team is "user".`,
    'When the person gives you a goal: decide the team it needs and spawn it (spawn_teammate), break the goal into tasks on the board (create_task, with blocked_by for order), and let the teammates claim them. Create each task once: list_tasks shows what exists.',
    "Then watch: teammates' reports, failures and questions arrive as messages. Answer plan requests with review_plan (approve plans that fit the goal; reject others with feedback). Send short messages when a teammate needs direction.",
    'When every task you created is completed, or the goal cannot be reached, call report with final: true: what was done, which tasks completed and which failed, and why. Use report without final for progress the person should know.',
    'You read the workspace but do not change it and do not run commands: teammates do the work. When there is nothing to do, stop calling tools: you are woken when a message arrives.',
    identity.prompt ? `Instructions for you: ${identity.prompt}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
}

export function systemPrompt(identity: Identity): string {
  if (identity.lead) return leadPrompt(identity);
  return [
    `You are ${identity.name}, a ${identity.role} on the team "${identity.team}", working autonomously with other teammates.`,
    `Your workspace is ${identity.workspace}; file and shell tools run there and cannot leave it.`,
    'The team shares a task board. When you are given a task, do it with your tools, then call complete_task with a short result, or fail_task with the reason if it cannot be done.',
    'Talk to teammates and the lead (the person running the team, named "lead") with send_message. Keep messages short.',
    'When you have nothing left to do, stop calling tools (or call idle): you will be woken when a message or a task arrives.',
    identity.planRequired
      ? `${PLAN_REQUIRED_MARKER} Before changing anything, call submit_plan with your plan and wait for the lead's approval; tools that change files or the board refuse until then.`
      : '',
    identity.prompt ? `Instructions for you: ${identity.prompt}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
}

export function identityDirective(identity: Identity, task: { id: number; subject: string } | null): string {
  return `[teamd:identity]\nYou are ${identity.name}, a ${identity.role} on team "${identity.team}". ${task ? `You are working on task ${task.id}: ${task.subject}.` : 'You have no task right now.'}`;
}
