import type { TodoItem } from '../contracts/todos.js';
import type { ChatMessage, Usage } from '../contracts/model.js';

/** A plan approval request this teammate sent, and the claim of the task it was for. */
export interface PlanRequest {
  requestId: string;
  task: number | null;
  claim: number | null;
  /** The lead answered it (approved or not). */
  answered: boolean;
}

export interface Session {
  messages: ChatMessage[];
  /** Inbox message ids already in the conversation: a restart drops them if re-read. */
  handled: string[];
  /** The one claim of one task whose plan the lead approved: a later task, or a new claim, needs its own. */
  approvedPlan: { task: number; claim: number } | null;
  /** Plan approval requests this teammate sent: a response must answer one of them. */
  planRequests: PlanRequest[];
  /** Tasks it gave back unfinished or refused: it does not claim them again. */
  gaveUp: number[];
  /** Tasks the lead asked it to plan first (request_plan): it submits a plan for them and waits for the approval. */
  planFor: number[];
  /** The budget whose exhaustion the lead was told of ("member:200000"): told once, whatever the restarts. */
  budgetNotice: string | null;
  /**
   * The length of the conversation when the model could not answer the messages at its end (it
   * refused, or the call failed): they are not put to it again at the next start, only once
   * something new arrives (a message, a task).
   */
  unansweredAt: number | null;
  usage: Usage;
  /** Its plan for the current task (todo_write), and the model calls made on a task since it was last written. */
  todos: TodoItem[];
  callsSinceTodo: number;
}
