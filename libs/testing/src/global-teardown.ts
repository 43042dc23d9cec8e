/** Stops what the global setup started (kept on globalThis: setup and teardown load modules apart). */
export default async function globalTeardown(): Promise<void> {
  const state = globalThis as typeof globalThis & { __lmsTestInfra?: { stop(): Promise<void> }[] };
  for (const item of (state.__lmsTestInfra ?? []).reverse()) await item.stop();
  state.__lmsTestInfra = [];
}
