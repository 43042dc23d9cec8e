import { QueryFailedError } from 'typeorm';
import { CONCURRENT_CHANGE, DATABASE_UNAVAILABLE, INTERNAL_ERROR, notFound, toRpcError, unlessGone, unlessTaken } from './rpc-errors.js';

describe('toRpcError', () => {
  it('answers a domain error with its own status', () => {
    expect(toRpcError(notFound('NOPE', 'gone'))).toMatchObject({ status: 404, code: 'NOPE' });
  });

  it('answers 503 when the database is down, restarting or out of connections, however the error is wrapped', () => {
    const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });
    for (const err of [
      pgError('57P01', 'terminating connection due to administrator command'),
      pgError('57P03', 'the database system is starting up'),
      pgError('08006'),
      pgError('53300', 'sorry, too many clients already'),
      pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new QueryFailedError('SELECT 1', [], pgError('57P01')),
    ]) {
      expect([err.message, toRpcError(err)]).toEqual([err.message, DATABASE_UNAVAILABLE]);
    }
  });

  it('answers 409 when another transaction won a race the service did not answer itself', () => {
    const pgError = (code: string) => Object.assign(new Error(`sqlstate ${code}`), { code });
    for (const err of [pgError('23503'), pgError('23505'), pgError('40001'), pgError('40P01'), new QueryFailedError('INSERT', [], pgError('23503'))]) {
      expect([err.message, toRpcError(err)]).toEqual([err.message, CONCURRENT_CHANGE]);
    }
  });

  it('keeps anything else a 500 without internals', () => {
    for (const err of [new Error('boom'), Object.assign(new Error('syntax'), { code: '42601' }), Object.assign(new Error('not null'), { code: '23502' }), 'text', null, undefined]) {
      expect(toRpcError(err)).toBe(INTERNAL_ERROR);
    }
  });
});

describe('unlessTaken and unlessGone', () => {
  const refused = (code: string) => () => Promise.reject(Object.assign(new Error('refused'), { code }));
  const problem = (code: string) => () => notFound(code, code);

  it("answer the service's own problem for the refusal each names, and pass every other error on", async () => {
    await expect(unlessTaken(refused('23505'), problem('TAKEN'))).rejects.toMatchObject({ code: 'TAKEN' });
    await expect(unlessGone(refused('23503'), problem('GONE'))).rejects.toMatchObject({ code: 'GONE' });
    await expect(unlessTaken(refused('23503'), problem('TAKEN'))).rejects.toMatchObject({ code: '23503' });
    await expect(unlessGone(refused('23505'), problem('GONE'))).rejects.toMatchObject({ code: '23505' });
    expect(await unlessGone(() => Promise.resolve(7), problem('GONE'))).toBe(7);
  });
});
