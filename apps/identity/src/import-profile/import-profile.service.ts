import { Inject, Injectable } from '@nestjs/common';
import {
  IMPORT_PROFILE_UPDATED_EVENT,
  type ImportSourceReply,
  nonPublicHostReason,
  type ImportProfileEventData,
  type ImportProfileView,
  type UpdateImportProfileBody,
} from '@lms/contracts';
import { badRequest, Database, InjectTenantRepository, Outbox, type TenantRepository, type TenantScope } from '@lms/platform';
import { CustomField } from '../custom-fields/custom-field.entity.js';
import { BUILT_IN_USER_FIELDS } from '../user-fields/user-fields.handlers.js';
import { columnViews, csvTemplate, resolveColumns } from './import-columns.js';
import { ImportProfileCipher } from './import-profile.cipher.js';
import { ImportProfile } from './import-profile.entity.js';
import { invalidImportColumns } from './import-profile.errors.js';

/** Whether csv_url may name a non-public host (IMPORT_ALLOW_PRIVATE_ADDRESSES), read once at start. */
export const IMPORT_URL_POLICY = Symbol('IMPORT_URL_POLICY');
export interface ImportUrlPolicy {
  allowPrivate: boolean;
}

const NO_DAYS = [false, false, false, false, false, false, false];

const eventData = (p: ImportProfile): ImportProfileEventData => ({ id: p.id, csv_url: p.csvUrl, csv_days: p.csvDays, csv_time: p.csvTime, has_headers: p.hasHeaders });

@Injectable()
export class ImportProfileService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    @Inject(ImportProfileCipher) private readonly cipher: ImportProfileCipher,
    @InjectTenantRepository(ImportProfile) private readonly profiles: TenantRepository<ImportProfile>,
    @InjectTenantRepository(CustomField) private readonly customFields: TenantRepository<CustomField>,
    @Inject(IMPORT_URL_POLICY) private readonly urlPolicy: ImportUrlPolicy,
  ) {}

  /**
   * What the import worker needs to fetch and map the file, the password decrypted for this answer only
   * (docs/jobs.md "Scheduled CSV imports": identity keeps the key, the worker does the fetching).
   */
  async source(scope: TenantScope): Promise<ImportSourceReply> {
    const p = await this.ensure(scope);
    return {
      csv_url: p.csvUrl,
      csv_user: p.csvUser,
      csv_password: p.csvPasswordEncrypted === null ? null : this.cipher.decrypt(p.csvPasswordEncrypted, scope.accountId),
      has_headers: p.hasHeaders,
      columns: p.columns,
    };
  }

  async show(scope: TenantScope): Promise<ImportProfileView> {
    return this.view(scope, await this.ensure(scope));
  }

  /** Partial update: absent fields keep their value, `null` clears a nullable one. */
  async update(scope: TenantScope, body: UpdateImportProfileBody): Promise<ImportProfileView> {
    if (typeof body.csv_url === 'string' && !this.urlPolicy.allowPrivate) {
      const reason = nonPublicHostReason(body.csv_url);
      if (reason) throw badRequest('VALIDATION_FAILED', 'The request is not valid.', [{ field: 'csv_url', message: `csv_url ${reason}` }]);
    }
    const saved = await this.db.transaction(async () => {
      await this.ensure(scope);
      // The row lock keeps two concurrent updates from interleaving their read and write.
      const profile = await this.profiles.query(scope, 'p').setLock('pessimistic_write').getOneOrFail();
      if (body.columns !== undefined) {
        const fields = await this.customFields.find(scope, { order: { id: 'ASC' } });
        const result = resolveColumns(body.columns, { builtIns: BUILT_IN_USER_FIELDS.map((f) => f.id), customFields: fields });
        if (!result.ok) throw invalidImportColumns(result.errors);
        profile.columns = result.columns;
      }
      if (body.csv_url !== undefined) profile.csvUrl = body.csv_url;
      if (body.csv_user !== undefined) profile.csvUser = body.csv_user;
      if (body.csv_password !== undefined) profile.csvPasswordEncrypted = body.csv_password === null ? null : this.cipher.encrypt(body.csv_password, scope.accountId);
      if (body.has_headers !== undefined) profile.hasHeaders = body.has_headers;
      if (body.csv_days !== undefined) profile.csvDays = body.csv_days;
      if (body.csv_time !== undefined) profile.csvTime = body.csv_time;
      const row = await this.profiles.save(scope, profile);
      await this.outbox.add(scope, IMPORT_PROFILE_UPDATED_EVENT, eventData(row));
      return row;
    });
    return this.view(scope, saved);
  }

  async csvFile(scope: TenantScope): Promise<string> {
    return csvTemplate((await this.show(scope)).import_columns);
  }

  /** The account's profile, created with defaults on first access; concurrent first accesses create one. */
  private async ensure(scope: TenantScope): Promise<ImportProfile> {
    const existing = await this.profiles.findOne(scope, {});
    if (existing) return existing;
    await this.profiles.insertNew(scope, [{ hasHeaders: true, csvDays: NO_DAYS, columns: [] }]);
    return (await this.profiles.findOne(scope, {})) as ImportProfile;
  }

  private async view(scope: TenantScope, p: ImportProfile): Promise<ImportProfileView> {
    const fields = p.columns.some((c) => 'custom_field_id' in c) ? await this.customFields.find(scope) : [];
    return {
      id: p.id,
      csv_url: p.csvUrl,
      csv_user: p.csvUser,
      csv_password_set: p.csvPasswordEncrypted !== null,
      csv_days: p.csvDays,
      csv_time: p.csvTime,
      has_headers: p.hasHeaders,
      import_columns: columnViews(p.columns, fields),
    };
  }
}
