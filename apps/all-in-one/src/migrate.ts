import { createLogger, loadConfigOrExit } from '@lms/platform';
import { migrateAll } from './host.js';

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel, { mode: 'migrate' });
await migrateAll(config, logger);
logger.info('every schema is migrated');
