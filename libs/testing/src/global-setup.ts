import { resolveTestInfrastructure } from './test-infrastructure.js';

export default async function globalSetup(): Promise<void> {
  await resolveTestInfrastructure();
}
