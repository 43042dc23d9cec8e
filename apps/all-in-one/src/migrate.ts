import { createLogger, loadConfigOrExit } from '@lms/platform';
import { migrateAll } from './host.js';
import { orExitExplained } from './start-errors.js';

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel, { mode: 'migrate' });
await orExitExplained(migrateAll(config, logger));
logger.info('every schema is migrated');
