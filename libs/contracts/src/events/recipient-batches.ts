/** Recipients per event: an event stays far below NATS's 1 MB message limit however many are told. */
export const PUBLISH_RECIPIENTS_BATCH = 1000;

/**
 * A publish's recipients as events carry them: the first batch rides in the published event itself, the
 * rest follow one batch per event, numbered from 2 (a course's and a session's publish alike).
 */
export function recipientBatches(recipients: number[]): { first: number[]; rest: { batch: number; recipients: number[] }[] } {
  const rest: { batch: number; recipients: number[] }[] = [];
  for (let start = PUBLISH_RECIPIENTS_BATCH, batch = 2; start < recipients.length; start += PUBLISH_RECIPIENTS_BATCH, batch++) {
    rest.push({ batch, recipients: recipients.slice(start, start + PUBLISH_RECIPIENTS_BATCH) });
  }
  return { first: recipients.slice(0, PUBLISH_RECIPIENTS_BATCH), rest };
}
