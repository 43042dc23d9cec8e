import { Module } from '@nestjs/common';
import { Database, DepartedUsers } from '@lms/platform';
import { CatalogLockables } from './locks/catalog-lockables.js';
import { LockEventConsumers } from './locks/lock-event-consumers.js';
import { LockRepository } from './locks/lock.repository.js';
import { CourseTemplateLockHandlers, LockCheckHandlers, TaskLockHandlers } from './locks/locks.handlers.js';
import { LocksService } from './locks/locks.service.js';
import { InitialLocking1763800000000 } from './migrations/1763800000000-initial-locking.js';
import { IdempotencyKeys1764350000000 } from './migrations/1764350000000-idempotency-keys.js';
import { Locks1764400000000 } from './migrations/1764400000000-locks.js';
import { InboxAge1767800000000 } from './migrations/1767800000000-inbox-age.js';
import { DepartedUsers1768500000000 } from './migrations/1768500000000-departed-users.js';

export const LOCKING_MIGRATIONS = [InitialLocking1763800000000, IdempotencyKeys1764350000000, Locks1764400000000, InboxAge1767800000000, DepartedUsers1768500000000];

@Module({
  controllers: [CourseTemplateLockHandlers, TaskLockHandlers, LockCheckHandlers],
  providers: [
    LockRepository,
    CatalogLockables,
    LocksService,
    LockEventConsumers,
    // Its own advisory lock class: catalog's and scheduling's departures share the database in all-in-one mode.
    { provide: DepartedUsers, useFactory: (db: Database) => new DepartedUsers(db, 1_768_500), inject: [Database] },
  ],
})
export class LockingModule {}
