import { ConfigError, loadConfig } from '@lms/platform';

describe('rate-limit configuration', () => {
  it('defaults to 1200 per token and 300 per address per 60 s window', () => {
    expect(loadConfig({})).toMatchObject({ rateLimitPerToken: 1200, rateLimitPerAddress: 300, rateLimitWindowS: 60 });
  });

  it('takes the environment, 0 turning a limit off', () => {
    expect(loadConfig({ RATE_LIMIT_PER_TOKEN: '0', RATE_LIMIT_PER_ADDRESS: '5', RATE_LIMIT_WINDOW_S: '3600' })).toMatchObject({
      rateLimitPerToken: 0,
      rateLimitPerAddress: 5,
      rateLimitWindowS: 3600,
    });
  });

  it.each([
    ['RATE_LIMIT_PER_TOKEN', '-1'],
    ['RATE_LIMIT_PER_TOKEN', 'lots'],
    ['RATE_LIMIT_PER_ADDRESS', '1.5'],
    ['RATE_LIMIT_WINDOW_S', '0'],
    ['RATE_LIMIT_WINDOW_S', '86401'],
  ])('stops the start on %s=%s, naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});
