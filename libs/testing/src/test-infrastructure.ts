// Placeholder until the harness lands: honours TEST_DATABASE_URL / TEST_NATS_URL only.
export async function resolveTestInfrastructure(): Promise<void> {
  if (!process.env.TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL required');
}
export async function stopTestInfrastructure(): Promise<void> {}
