import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { type CloudEvent, IMPORT_PROFILE_UPDATED_EVENT, ImportScheduleEventData } from '@lms/contracts';
import { CONSUMER_RETRY, Database, eventData, LOGGER, type Logger, MESSAGE_BUS, type MessageBus, PeriodicTask, type Subscription, subscribeWithInbox } from '@lms/platform';
import { type ImportSchedulerConfig, importSchedulerConfig } from './import-runs.config.js';
import { dueSlot, type ImportSchedule } from './import-schedule.js';
import { ImportRunsService } from './import-runs.service.js';

export const IMPORT_SCHEDULES_CONSUMER = 'jobs-import-schedules';
export const IMPORT_SCHEDULER_CONFIG = Symbol('IMPORT_SCHEDULER_CONFIG');
export const importSchedulerConfigProvider = { provide: IMPORT_SCHEDULER_CONFIG, useFactory: () => importSchedulerConfig() };

interface ScheduleRow {
  account_id: number;
  csv_days: boolean[];
  csv_time: string | null;
  has_url: boolean;
  active_since: Date;
}

/**
 * Runs each account's import at its scheduled slots (docs/jobs.md "Scheduled CSV imports"). Every jobs
 * replica ticks; `enqueueSlot` makes each slot one run. The schedules are jobs' own copy of the profiles'
 * days and time, kept from identity's `identity.import_profile.updated` events (no service reads another's
 * schema), newest event wins.
 */
@Injectable()
export class ImportScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private subscription?: Subscription;
  private readonly task: PeriodicTask;

  constructor(
    private readonly db: Database,
    private readonly runs: ImportRunsService,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(IMPORT_SCHEDULER_CONFIG) private readonly config: ImportSchedulerConfig,
  ) {
    this.task = new PeriodicTask('import scheduler tick', config.intervalMs, () => this.enqueueDue(new Date()), logger);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await subscribeWithInbox(
      this.db,
      this.bus.events,
      { durable: IMPORT_SCHEDULES_CONSUMER, types: [IMPORT_PROFILE_UPDATED_EVENT], ...CONSUMER_RETRY },
      async (event) => this.record(event),
    );
    // A slot missed while the system was down runs now (within the catch-up bound), then on every tick.
    this.task.start({ now: true });
  }

  async onModuleDestroy(): Promise<void> {
    await this.task.stop();
    await this.subscription?.unsubscribe();
  }

  /** Enqueues every account's due slot at `now` (a parameter, so a test drives the clock); answers the accounts enqueued. */
  async enqueueDue(now: Date): Promise<number[]> {
    const rows = (await this.db.manager.query(
      `SELECT account_id, csv_days, csv_time, has_url, active_since FROM "${this.db.schema}".import_schedules WHERE has_url AND csv_time IS NOT NULL ORDER BY account_id`,
    )) as ScheduleRow[];
    const enqueued: number[] = [];
    for (const row of rows) {
      const schedule: ImportSchedule = { accountId: row.account_id, csvDays: row.csv_days, csvTime: row.csv_time, hasUrl: row.has_url, activeSince: row.active_since };
      const slot = dueSlot(schedule, now, this.config.catchUpMs);
      if (slot && (await this.runs.enqueueSlot({ accountId: row.account_id }, slot))) {
        this.logger.info({ accountId: row.account_id, slot: slot.toISOString() }, 'scheduled import enqueued');
        enqueued.push(row.account_id);
      }
    }
    return enqueued;
  }

  private async record(event: CloudEvent): Promise<void> {
    const data = await eventData<ImportScheduleEventData>(ImportScheduleEventData, event);
    const at = new Date(event.time);
    await this.db.manager.query(
      `INSERT INTO "${this.db.schema}".import_schedules AS s (account_id, csv_days, csv_time, has_url, active_since, event_time)
       VALUES ($1, $2, $3, $4, $5, $5)
       ON CONFLICT (account_id) DO UPDATE SET
         csv_days = EXCLUDED.csv_days, csv_time = EXCLUDED.csv_time, has_url = EXCLUDED.has_url, event_time = EXCLUDED.event_time,
         active_since = CASE WHEN (s.csv_days, s.csv_time, s.has_url) IS DISTINCT FROM (EXCLUDED.csv_days, EXCLUDED.csv_time, EXCLUDED.has_url)
                             THEN EXCLUDED.active_since ELSE s.active_since END
       WHERE s.event_time <= EXCLUDED.event_time`,
      [event.accountid, data.csv_days, data.csv_time ?? null, data.csv_url !== null && data.csv_url !== undefined, at],
    );
  }
}
