import { Module } from '@nestjs/common';
import { IdentityDirectory } from '@lms/platform';
import { DataDumpsHandlers } from './data-dumps/data-dumps.handlers.js';
import { DataDumpsService } from './data-dumps/data-dumps.service.js';
import { DownloadsHandlers } from './downloads/downloads.handlers.js';
import { DownloadsService } from './downloads/downloads.service.js';
import { ImportRunsModule } from './import-runs/import-runs.module.js';
import { ImportRuns1767100000000 } from './migrations/1767100000000-import-runs.js';
import { InitialJobs1763800000000 } from './migrations/1763800000000-initial-jobs.js';
import { IdempotencyKeys1764350000000 } from './migrations/1764350000000-idempotency-keys.js';
import { Jobs1764500000000 } from './migrations/1764500000000-jobs.js';
import { CloneObjects1766800000000 } from './migrations/1766800000000-clone-objects.js';
import { CloneObjectsHandlers } from './clone-objects/clone-objects.handlers.js';
import { CloneObjectsService } from './clone-objects/clone-objects.service.js';
import { NotificationDeliveries1767200000000 } from './migrations/1767200000000-notification-deliveries.js';
import { Retention1767300000000 } from './migrations/1767300000000-retention.js';
import { ReplacedDumps1767400000000 } from './migrations/1767400000000-replaced-dumps.js';
import { Sweeps1767500000000 } from './migrations/1767500000000-sweeps.js';
import { InboxAge1767800000000 } from './migrations/1767800000000-inbox-age.js';
import { UnsettledWork1767900000000 } from './migrations/1767900000000-unsettled-work.js';
import { NotificationsHandlers } from './notifications/notifications.handlers.js';
import { NotificationsService } from './notifications/notifications.service.js';

export const JOBS_MIGRATIONS = [InitialJobs1763800000000, IdempotencyKeys1764350000000, Jobs1764500000000, CloneObjects1766800000000, ImportRuns1767100000000, NotificationDeliveries1767200000000, Retention1767300000000, ReplacedDumps1767400000000, Sweeps1767500000000, InboxAge1767800000000, UnsettledWork1767900000000];

@Module({
  imports: [ImportRunsModule],
  controllers: [DataDumpsHandlers, DownloadsHandlers, CloneObjectsHandlers, NotificationsHandlers],
  providers: [DataDumpsService, DownloadsService, CloneObjectsService, NotificationsService, IdentityDirectory],
})
export class JobsModule {}
