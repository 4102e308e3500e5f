import { PLAN_REQUIRED_MARKER } from './directives.js';

export interface Identity {
  readonly name: string;
  readonly role: string;
  readonly team: string;
  readonly workspace: string;
  readonly prompt?: string | undefined;
  readonly planRequired: boolean;
}

export function systemPrompt(identity: Identity): string {
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
