import { Entity, PrimaryColumn } from 'typeorm';
import { ConferenceDetails } from './web-conference.entity.js';

/** A user's saved conference details (`default_session=true`), given to the sessions they create next. */
@Entity({ schema: 'scheduling', name: 'web_conference_defaults' })
export class WebConferenceDefault extends ConferenceDetails {
  @PrimaryColumn({ name: 'account_id', type: 'integer' })
  accountId: number;

  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;
}
