import { badRequest, conflict } from '@lms/platform';

/** A subdomain is one DNS label, the form BOOTSTRAP_ACCOUNT is held to as well. */
export const SUBDOMAIN_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export const invalidSubdomain = (subdomain: string) =>
  badRequest('INVALID_SUBDOMAIN', `"${subdomain}" is not a subdomain: use 1 to 63 of a-z, 0-9 and "-", not starting or ending with "-".`, [
    { field: 'subdomain', message: 'must be a DNS label (a-z, 0-9, -)' },
  ]);

export const invalidAccountName = () =>
  badRequest('INVALID_ACCOUNT_NAME', 'The account name must be 1 to 255 characters, not blank.', [{ field: 'name', message: 'must be 1 to 255 characters' }]);

export const subdomainTaken = (subdomain: string) => conflict('SUBDOMAIN_TAKEN', `An account with subdomain "${subdomain}" already exists.`);
