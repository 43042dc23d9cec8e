import { relayPollDelay } from './outbox-relay.js';

describe('relayPollDelay', () => {
  it('polls at the interval after a run that published, then doubles the wait for each quiet poll up to the idle interval', () => {
    expect([0, 1, 2, 3, 4, 5, 60].map((quiet) => relayPollDelay(1_000, 5_000, quiet))).toEqual([1_000, 1_000, 2_000, 4_000, 5_000, 5_000, 5_000]);
  });

  it('never waits less than the interval, whatever the idle interval', () => {
    expect([0, 3].map((quiet) => relayPollDelay(600_000, 5_000, quiet))).toEqual([600_000, 600_000]);
  });
});
