import { readiness } from './readiness.js';

describe('readiness', () => {
  it('is ok when every check passes', async () => {
    await expect(readiness([{ name: 'a', check: async () => undefined }])).resolves.toEqual({ status: 'ok', checks: [{ name: 'a', status: 'up' }] });
  });

  it('reports each failing or hanging check by name', async () => {
    const result = await readiness(
      [
        { name: 'up', check: async () => undefined },
        { name: 'failing', check: async () => Promise.reject(new Error('connection refused')) },
        { name: 'hanging', check: () => new Promise<void>(() => undefined) },
      ],
      20,
    );
    expect(result).toEqual({
      status: 'unavailable',
      checks: [
        { name: 'up', status: 'up' },
        { name: 'failing', status: 'down', error: 'connection refused' },
        { name: 'hanging', status: 'down', error: 'no answer within 20 ms' },
      ],
    });
  });
});
