// A jobs-worker process for the clone kill spec, from the build `npm test` makes first: the real clone
// executor, which also says on stdout which attempt of which clone it runs (so the spec knows whom to kill).
// A short lease keeps the spec quick.
import { contextSealFor, runStandalone } from '@lms/platform';
import { CloneObjectExecutor, service, start } from '../../../dist/apps/jobs-worker/main.js';

await runStandalone(
  'jobs-worker',
  (runtime) => {
    const real = new CloneObjectExecutor({ seal: contextSealFor(runtime.config), timeoutMs: runtime.config.rpcTimeoutMs });
    const told = {
      kind: real.kind,
      run(job, context) {
        process.stdout.write(`running ${job.id} attempt ${job.attempt}\n`);
        return real.run(job, context);
      },
      abandon: (job, context) => real.abandon(job, context),
    };
    return start(runtime, { extraExecutors: [told], retry: { maxAttempts: 3, backoffMs: [200], leaseMs: 3_000 } });
  },
  { service, serveHealth: true },
);
