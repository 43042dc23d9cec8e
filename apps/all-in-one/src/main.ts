import { assertAllInOneConfig, createLogger, installShutdown, loadConfigOrExit, trimHeapWhenIdle } from '@lms/platform';
import { startSystem } from './host.js';
import { orExitExplained } from './start-errors.js';

const config = loadConfigOrExit(assertAllInOneConfig);
const logger = createLogger(config.logLevel, { mode: 'all-in-one' });
const system = await orExitExplained(startSystem({ config, logger }));
installShutdown(logger, () => system.close());
trimHeapWhenIdle(logger);

const mode = `${config.databaseUrl ? 'Postgres at DATABASE_URL' : `embedded Postgres in ${config.dataDir}/postgres`}, ${config.natsUrl ? 'NATS at NATS_URL' : 'in-process bus'}`;
logger.info({ url: system.url }, `learning service listening on ${system.url} (${mode})`);
process.stdout.write(
  [
    '',
    `  Learning service: ${system.url}   API docs: ${system.url}/api/docs`,
    config.bootstrapAdminToken
      ? `  Authenticate with:  -H "Authorization: Bearer $BOOTSTRAP_ADMIN_TOKEN"  (administrator "admin" of account "${config.bootstrapAccount}")`
      : '  No BOOTSTRAP_ADMIN_TOKEN was set: start once with BOOTSTRAP_ADMIN_TOKEN=<at least 16 characters> to create the first account and its administrator.',
    `  Try:  curl -H "Authorization: Bearer $BOOTSTRAP_ADMIN_TOKEN" ${system.url}/api/author/custom_fields?includes[]=name`,
    '',
  ].join('\n') + '\n',
);
