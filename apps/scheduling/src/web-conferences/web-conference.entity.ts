import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** The conferencing details every web conference record carries. */
export abstract class ConferenceDetails {
  @Column({ type: 'text' })
  provider: string;

  @Column({ name: 'other_provider', type: 'text', nullable: true })
  otherProvider: string | null;

  @Column({ name: 'meeting_url', type: 'text', nullable: true })
  meetingUrl: string | null;

  @Column({ name: 'access_code', type: 'text', nullable: true })
  accessCode: string | null;

  @Column({ type: 'text', nullable: true })
  phone: string | null;

  @Column({ name: 'host_key', type: 'text', nullable: true })
  hostKey: string | null;

  @Column({ type: 'text', nullable: true })
  password: string | null;

  @Column({ name: 'registration_link', type: 'text', nullable: true })
  registrationLink: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

@Entity({ schema: 'scheduling', name: 'web_conferences' })
export class WebConference extends ConferenceDetails {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ name: 'session_id', type: 'integer' })
  sessionId: number;
}
