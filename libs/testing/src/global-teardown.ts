import { stopTestInfrastructure } from './test-infrastructure.js';

export default async function globalTeardown(): Promise<void> {
  await stopTestInfrastructure();
}
