/** Every exit code medchat uses. The README's "Exit codes" table mirrors this list. */
export const ExitCode = {
  ok: 0,
  failure: 1, // service or network failure
  usage: 2, // usage, configuration or input error
  auth: 3, // the key was refused
  incomplete: 4, // the answer was cut off
  jobRejected: 5, // retexture: the service rejected the job
  taskFailed: 6, // retexture: the task failed or was cancelled
  deadline: 7, // retexture: the deadline passed
  endedEarly: 8, // the service ended the answer early: max-tokens (length), a content filter, or no answer text
  schemaInvalid: 9, // --schema: the answer is not valid JSON for the schema, even after one repair request
  batchFailures: 10, // batch: the run finished, but some items failed (their lines carry "error"; rerun retries them)
  privacyFound: 11, // privacy check found identifiers
  auditBroken: 12, // audit verify: a line of the audit log was changed, removed, moved or cut short
  interrupted: 130, // Ctrl+C / SIGINT
  hangup: 129, // SIGHUP
  terminated: 143, // SIGTERM
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];
