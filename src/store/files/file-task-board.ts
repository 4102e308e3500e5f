import type { Board } from './board.js';
import type { TaskBoard } from '../../contracts/task-board.js';

/** The file store's board (one JSON file per task, under locks) behind the TaskBoard interface. */
export function fileTaskBoard(board: Board): TaskBoard {
  return {
    add: (input) => board.add(input),
    list: async (filter) => board.list(filter),
    counts: async (failedShown) => board.counts(failedShown),
    get: async (id) => board.get(id),
    ownedBy: async (name) => board.ownedBy(name),
    readyTasks: async (limit) => board.readyTasks(limit),
    claim: (id, owner) => board.claim(id, owner),
    claimNext: (owner, options) => board.claimNext(owner, options),
    complete: (id, actor, result) => board.complete(id, actor, result),
    fail: (id, actor, reason) => board.fail(id, actor, reason),
    cancel: (id) => board.cancel(id),
    release: (id, actor) => board.release(id, actor),
    giveWorktree: (id, spec) => board.giveWorktree(id, spec),
    setWorktree: (id, change) => board.setWorktree(id, change),
    setBlockers: (id, blockedBy) => board.setBlockers(id, blockedBy),
    reconcile: () => board.reconcile(),
  };
}
