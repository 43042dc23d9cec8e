// A jobs-worker process with two job kinds of the tests' own, from the build `npm test` makes first:
// `test.slow` writes its file in `chunks` pieces `delayMs` apart (time to kill the worker mid-run),
// and its first attempt waits `firstHoldsMs` after storing it,
// `test.fail` always throws, and so does `test.abandon`, whose undoing (`abandon`) says so and waits `holdMs` when
// the first delivery after its attempts runs it (time to kill its worker there). Short back-offs and lease keep the specs quick.
import { setTimeout as sleep } from 'node:timers/promises';
import { runStandalone } from '@lms/platform';
import { jobFileKey, service, start } from '../../../dist/apps/jobs-worker/main.js';

const slow = {
  kind: 'test.slow',
  async run(job, context) {
    process.stdout.write(`running ${job.id} attempt ${job.attempt}\n`);
    const chunks = Number(job.params.chunks ?? 10);
    const delayMs = Number(job.params.delayMs ?? 100);
    async function* body() {
      for (let i = 0; i < chunks; i += 1) {
        await sleep(delayMs);
        await context.progress((i * 100) / chunks);
        yield Buffer.from(`chunk ${i}\n`);
      }
    }
    const name = 'slow.txt';
    const stored = await context.files.put(jobFileKey(job, name), body());
    process.stdout.write(`stored ${job.id} attempt ${job.attempt}\n`);
    // The first attempt can wait between storing its file and recording it: time to kill its worker there.
    if (job.attempt === 1) await sleep(Number(job.params.firstHoldsMs ?? 0));
    return { file: { key: stored.key, name, size: stored.size } };
  },
};

const failing = {
  kind: 'test.fail',
  async run(job) {
    throw new Error(`boom on attempt ${job.attempt}`);
  },
};

const abandoned = {
  kind: 'test.abandon',
  async run(job) {
    throw new Error(`boom on attempt ${job.attempt}`);
  },
  async abandon(job) {
    process.stdout.write(`abandoning ${job.id} delivery ${job.attempt}\n`);
    if (job.attempt === 4) await sleep(Number(job.params.holdMs ?? 0));
  },
};

await runStandalone('jobs-worker', (runtime) => start(runtime, { extraExecutors: [slow, failing, abandoned], retry: { maxAttempts: 3, backoffMs: [200], leaseMs: 3_000 } }), {
  service,
  serveHealth: true,
});
