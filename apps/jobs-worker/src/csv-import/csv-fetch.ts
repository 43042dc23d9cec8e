import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress, nonPublicHostReason } from '@lms/contracts';
import { ImportFailure } from './import-failure.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address a host name resolves to (a parameter, so a test can play a DNS answer). */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

export interface FetchOptions {
  allowPrivateAddresses: boolean;
  maxBytes: number;
  timeoutMs: number;
  resolve?: Resolver;
}

/**
 * Fetches the import file with HTTP basic auth. Without IMPORT_ALLOW_PRIVATE_ADDRESSES the URL's host
 * must be public by its text (nonPublicHostReason) and every address it resolves to must be public; the
 * connection then goes to exactly the address that was checked (the request's `lookup` answers it), so a
 * second, different DNS answer (rebinding) is never used. Redirects are not followed. The body may not
 * exceed `maxBytes` and the whole exchange must finish within `timeoutMs`.
 */
export async function fetchCsv(url: string, auth: { user: string | null; password: string | null }, options: FetchOptions): Promise<Buffer> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new ImportFailure('csv_url is not a URL');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new ImportFailure(`csv_url uses ${target.protocol.slice(0, -1)}, which the import does not fetch (http and https only)`);
  if (!options.allowPrivateAddresses) {
    const reason = nonPublicHostReason(url);
    if (reason) throw new ImportFailure(`csv_url ${reason} (refused; an operator may allow it with IMPORT_ALLOW_PRIVATE_ADDRESSES)`);
  }
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: ResolvedAddress[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await (options.resolve ?? systemResolver)(host);
    } catch (err) {
      throw new ImportFailure(`csv_url's host ${host} does not resolve (${(err as Error).message})`);
    }
  }
  if (addresses.length === 0) throw new ImportFailure(`csv_url's host ${host} does not resolve`);
  if (!options.allowPrivateAddresses) {
    const inside = addresses.find((a) => !isPublicAddress(a.address));
    if (inside) throw new ImportFailure(`csv_url's host ${host} resolves to ${inside.address}, which is not a public internet address (refused; an operator may allow it with IMPORT_ALLOW_PRIVATE_ADDRESSES)`);
  }
  const [chosen] = addresses;
  const pinned = ((_host: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (opts?.all) callback(null, [{ address: chosen.address, family: chosen.family }]);
    else callback(null, chosen.address, chosen.family);
  }) as unknown as LookupFunction;

  const headers: Record<string, string> = { accept: 'text/csv, text/plain;q=0.9, */*;q=0.1', 'user-agent': 'learning-service-import' };
  if (auth.user !== null || auth.password !== null) headers.authorization = `Basic ${Buffer.from(`${auth.user ?? ''}:${auth.password ?? ''}`, 'utf8').toString('base64')}`;

  return new Promise<Buffer>((resolve, reject) => {
    const client = target.protocol === 'https:' ? https : http;
    const request = client.request(target, { method: 'GET', headers, lookup: pinned, agent: false }, (response) => {
      const status = response.statusCode ?? 0;
      if (status !== 200) {
        response.resume();
        const message = `the file's server answered ${status}${status === 401 || status === 403 ? ' (check csv_user and csv_password)' : ''}`;
        // A server error may pass (the job retries); anything else will not change by asking again.
        return fail(status >= 500 ? new Error(message) : new ImportFailure(status >= 300 && status < 400 ? `${message}: redirects are not followed` : message));
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) return fail(tooLarge());
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) return fail(tooLarge());
        chunks.push(chunk);
      });
      response.on('end', () => {
        clearTimeout(timer);
        resolve(Buffer.concat(chunks));
      });
      response.on('error', (err) => fail(err));
    });
    const timer = setTimeout(() => fail(new Error(`fetching csv_url took longer than ${options.timeoutMs} ms`)), options.timeoutMs);
    const tooLarge = () => new ImportFailure(`the file is larger than ${options.maxBytes} bytes (IMPORT_MAX_BYTES)`);
    function fail(err: Error): void {
      clearTimeout(timer);
      request.destroy();
      reject(err);
    }
    request.on('error', (err) => fail(err));
    request.end();
  });
}
