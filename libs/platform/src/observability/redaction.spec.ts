import { Writable } from 'node:stream';
import { createLogger } from './logger.js';
import { REDACTED, redactUrl, redactValue } from './redaction.js';

describe('log redaction', () => {
  it('replaces secret-named fields at any depth, keeping the rest', () => {
    expect(
      redactValue({ requestId: 'r1', headers: { authorization: 'Bearer abc', accept: 'json' }, body: { csv_password: 'p', csv_user: 'u', nested: [{ password: 'x', signingKey: 'k' }] } }),
    ).toEqual({ requestId: 'r1', headers: { authorization: REDACTED, accept: 'json' }, body: { csv_password: REDACTED, csv_user: 'u', nested: [{ password: REDACTED, signingKey: REDACTED }] } });
  });

  it('removes credentials from free text and URLs', () => {
    expect(redactValue({ msg: 'sent Authorization: Bearer lms_abcdefghijklmnopqrstuvwxyz for lms_0123456789abcdefghij' })).toEqual({ msg: `sent Authorization: Bearer ${REDACTED} for lms_${REDACTED}` });
    expect(redactUrl('/api/x?page=2&access_token=abc&Token=def&includes[]=name')).toBe(`/api/x?page=2&access_token=${REDACTED}&Token=${REDACTED}&includes[]=name`);
  });

  it('drops the parameter values of a failed query, keeping its SQL and message', () => {
    const failure = Object.assign(new Error('duplicate key value violates unique constraint'), {
      query: 'INSERT INTO users (email) VALUES ($1)',
      parameters: ['someone@example.com'],
      driverError: Object.assign(new Error('duplicate key'), { detail: 'Key (email)=(someone@example.com) already exists.' }),
    });
    const line = JSON.stringify(redactValue({ err: failure }));
    expect(line).not.toContain('someone@example.com');
    expect(line).toContain('INSERT INTO users (email) VALUES ($1)');
    expect(line).toContain('duplicate key value violates unique constraint');
  });

  it("names, without copying, the objects of other classes an error carries, such as pg-pool's client of a lost connection", () => {
    class Client {
      readonly connectionParameters = { host: 'db', port: 5432 };
      readonly socket = { bufferedBytes: 4096 };
    }
    const lost = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
      client: new Client(),
      where: { schema: 'identity' },
      driverError: Object.assign(new Error('socket closed'), { client: new Client() }),
    });
    const logged = redactValue({ err: lost, pool: new Client() }) as { err: Record<string, unknown>; pool: unknown };
    expect(logged.err).toEqual(expect.objectContaining({ message: 'terminating connection due to administrator command', code: '57P01', client: '[Client]', where: { schema: 'identity' } }));
    expect(logged.err.driverError).toEqual(expect.objectContaining({ message: 'socket closed', client: '[Client]' }));
    // Outside an error, what a caller chose to log stays as it is.
    expect(logged.pool).toEqual({ connectionParameters: { host: 'db', port: 5432 }, socket: { bufferedBytes: 4096 } });
  });

  it('is applied by every logger the system creates, children included', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _e, done) => void (lines.push(String(chunk)), done()) });
    const logger = createLogger('info', { service: 'test' }, sink).child({ requestId: 'r2' });
    logger.info({ url: '/a?access_token=lms_secretsecretsecretsecret', config: { bootstrapAdminToken: 'bootstrap-secret-value' } }, 'request');
    logger.error({ err: new Error('failed with Bearer abc.def') }, 'boom');
    const text = lines.join('');
    expect(text).not.toMatch(/secretsecret|bootstrap-secret-value|abc\.def/);
    expect(JSON.parse(lines[1]).err).toEqual(expect.objectContaining({ type: 'Error', message: `failed with Bearer ${REDACTED}` }));
  });
});
