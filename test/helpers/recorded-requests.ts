import fs from 'node:fs';

/** A request the offline model recorded (TEAMD_OFFLINE_RECORD): who made it, its system prompt and the names of its tools. */
export interface RecordedRequest {
  readonly teammate: string;
  readonly system: string;
  readonly tools: string[];
}

/** Every request recorded so far, oldest first; none before the first. */
export function recordedRequests(file: string): RecordedRequest[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RecordedRequest);
}
