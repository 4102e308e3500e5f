import * as z from 'zod';
import { JOB_ID, type JobRecord } from '../contracts/job-record.js';
import { defineTool, toolError } from '../contracts/tool.js';

/** Output returned per job_output call; the model asks again from `next_offset` for more. */
const OUTPUT_PAGE_BYTES = 32 * 1024;
const jobId = z.string().regex(JOB_ID, 'a job id looks like "alice-3" (bash with run_in_background returns it)');

export const jobOutputTool = defineTool({
  name: 'job_output',
  description:
    'Read the output of one of your background jobs (bash with run_in_background), from a byte offset (default 0), up to 32 KiB per call; says whether the job still runs.',
  input: z.object({ id: jobId, offset: z.number().int().nonnegative().optional() }),
  needsApprovedPlan: false,
  run: async (input, ctx) => {
    if (!ctx.jobs) return toolError('background jobs are not available here');
    const read = ctx.jobs.output(input.id, input.offset ?? 0, OUTPUT_PAGE_BYTES);
    if (!read) return toolError(`you have no job ${input.id}`);
    const more = read.next < read.size ? `; more from offset ${read.next} (of ${read.size} bytes)` : '';
    return { content: `job ${input.id}: ${describeJob(read.record)}${more}\n${read.text}` };
  },
});

export const jobKillTool = defineTool({
  name: 'job_kill',
  description: 'End one of your running background jobs (the command and everything it started).',
  input: z.object({ id: jobId }),
  needsApprovedPlan: false,
  run: async (input, ctx) => {
    if (!ctx.jobs) return toolError('background jobs are not available here');
    const killed = ctx.jobs.kill(input.id);
    if (!killed) return toolError(`job ${input.id} is not running (or is not yours)`);
    return { content: `job ${input.id} is being ended; you will be told when it has stopped` };
  },
});

/** "running since …", "exit code 0", "killed (ended by job_kill)": one phrase for a job's state. */
export function describeJob(record: JobRecord): string {
  const why = record.note ? ` (${record.note})` : '';
  switch (record.state) {
    case 'running':
      return `running since ${record.startedAt}`;
    case 'exited':
      return record.signal ? `killed by ${record.signal}` : `exit code ${record.exitCode ?? '?'}`;
    case 'killed':
      return `killed${why}`;
    case 'timed-out':
      return `timed out and killed${why}`;
    case 'lost':
      return `lost${why}`;
  }
}
