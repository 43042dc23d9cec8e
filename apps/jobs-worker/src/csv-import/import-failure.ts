/**
 * A run that cannot succeed as it stands (an address refused, a file too large or malformed, the share
 * guard): recorded as the run's error at once, not retried. Any other error is taken as passing (a
 * service or the file's server unavailable) and the job is retried (docs/jobs.md).
 */
export class ImportFailure extends Error {}
