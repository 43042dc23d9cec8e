import type { JsonSchema } from '../routes/route.js';

export const CRM_ACCOUNT_SUBJECTS = {
  show: 'identity.crm_accounts.show',
} as const;

/** The caller's own account as the CRM sees it, answered under the `crm_account` key. */
export interface CrmAccountView {
  id: number;
  name: string;
}

export const CRM_ACCOUNT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'name'],
  properties: { id: { type: 'integer' }, name: { type: 'string' } },
};
