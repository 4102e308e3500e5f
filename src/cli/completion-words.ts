import type { Argument } from 'commander';
import { parseCronId, parseMemberName, parseTaskId } from './parsers.js';

/** What an argument names, for completion: words `teamd __complete <kind>` lists from the state folder. */
export const WORD_KINDS = ['tasks', 'members', 'requests', 'cron'] as const;
export type WordKind = (typeof WORD_KINDS)[number];

/**
 * The words an argument takes, read from how it is parsed (a task id, a member's name, a cron
 * job's id) or, for the two without a parser of their own, its name: a new command's arguments
 * complete as soon as they use the parsers, with no table to keep in step. null: none offered
 * (a subject, a new teammate's name, free text).
 */
export function argumentWords(argument: Argument): WordKind | null {
  const parse: unknown = argument.parseArg;
  if (parse === parseTaskId) return 'tasks';
  if (parse === parseMemberName) return 'members';
  if (parse === parseCronId) return 'cron';
  switch (argument.name()) {
    case 'requestId':
      return 'requests';
    // teamd budget <name> <tokens> | --team <tokens>: its first word is read by hand.
    case 'name|tokens':
      return 'members';
    default:
      return null;
  }
}
