import { Injectable } from '@nestjs/common';
import type { CloneCheckReply, CloneSubAccountReply, RequestContext } from '@lms/contracts';
import { conflict, Database, forbidden, notFound, queryResult, runCloneStep, undoCloneStep } from '@lms/platform';

/** Clone steps are a job's, run on behalf of the administrator who asked for the clone. */
export function requireCloneAdmin(ctx: RequestContext): void {
  if (!ctx.roles.includes('admin')) throw forbidden('CLONE_FORBIDDEN', 'Only an administrator may clone a sub-account.');
}

/**
 * identity's part of a sub-account clone (docs/jobs.md "Sub-account clones"): the new sub-account, made
 * hidden (`cloning`) with the source's locked attributes, shown when the clone completes, removed by the
 * compensation. Keyed by the clone id: the sub-account row carries it (unique), and clone_steps records the step.
 */
@Injectable()
export class SubAccountClonesService {
  constructor(private readonly db: Database) {}

  /** Asked when a clone is accepted: which sources are no sub-account of the account, which subdomains are taken. */
  async check(ctx: RequestContext, sourceIds: number[], subdomains: string[]): Promise<CloneCheckReply> {
    requireCloneAdmin(ctx);
    const known = (await this.db.manager.query('SELECT id FROM identity.sub_accounts WHERE account_id = $1 AND id = ANY($2::int[]) AND NOT cloning', [ctx.accountId, sourceIds])) as { id: number }[];
    const taken = (await this.db.manager.query(
      `SELECT subdomain FROM identity.accounts WHERE subdomain = ANY($1::text[])
       UNION SELECT subdomain FROM identity.sub_accounts WHERE subdomain = ANY($1::text[])`,
      [subdomains],
    )) as { subdomain: string }[];
    const ids = new Set(known.map((r) => r.id));
    return { unknown_sources: sourceIds.filter((id) => !ids.has(id)), taken_subdomains: taken.map((r) => r.subdomain) };
  }

  async create(ctx: RequestContext, cloneId: string, sourceId: number, subdomain: string, name: string): Promise<CloneSubAccountReply> {
    requireCloneAdmin(ctx);
    return runCloneStep(this.db, ctx.accountId, cloneId, 'identity: creating the sub-account', async (manager) => {
      // One subdomain at a time: the check and the insert are not raced by another clone.
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`subdomain:${subdomain}`]);
      const [source] = (await manager.query('SELECT id, is_root, locked_attributes FROM identity.sub_accounts WHERE account_id = $1 AND id = $2 AND NOT cloning', [
        ctx.accountId,
        sourceId,
      ])) as { id: number; is_root: boolean; locked_attributes: string[] }[];
      if (!source) throw notFound('SUB_ACCOUNT_NOT_FOUND', `The account has no sub-account ${sourceId}.`);
      const [taken] = (await manager.query('SELECT 1 FROM identity.accounts WHERE subdomain = $1 UNION ALL SELECT 1 FROM identity.sub_accounts WHERE subdomain = $1', [subdomain])) as unknown[];
      if (taken) throw conflict('SUBDOMAIN_TAKEN', `The subdomain "${subdomain}" is taken.`);
      const [row] = (await manager.query(
        `INSERT INTO identity.sub_accounts (account_id, name, is_root, locked_attributes, subdomain, clone_id, cloning)
         VALUES ($1, $2, false, $3, $4, $5, true) RETURNING id`,
        [ctx.accountId, name.trim(), source.locked_attributes, subdomain, cloneId],
      )) as { id: number }[];
      return { sub_account_id: row.id, source_is_root: source.is_root };
    });
  }

  /** The last step: the clone is complete, its sub-account is shown. Repeating it changes nothing. */
  async activate(ctx: RequestContext, cloneId: string): Promise<CloneSubAccountReply> {
    requireCloneAdmin(ctx);
    const [row] = queryResult<{ id: number }>(await this.db.manager.query('UPDATE identity.sub_accounts SET cloning = false WHERE account_id = $1 AND clone_id = $2 RETURNING id', [ctx.accountId, cloneId])).rows;
    if (!row) throw conflict('CLONE_UNDONE', `identity: clone ${cloneId} has no sub-account (it was compensated)`);
    return { sub_account_id: row.id, source_is_root: false };
  }

  /** Compensation: the hidden sub-account goes. A shown one (its clone complete) is never removed here. */
  async undo(ctx: RequestContext, cloneId: string): Promise<number> {
    requireCloneAdmin(ctx);
    return undoCloneStep(this.db, ctx.accountId, cloneId, async (manager) => {
      return queryResult(await manager.query('DELETE FROM identity.sub_accounts WHERE account_id = $1 AND clone_id = $2 AND cloning', [ctx.accountId, cloneId])).count;
    });
  }
}
