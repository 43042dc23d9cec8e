import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** One mapped field of a CSV column: a built-in user field by key, or a custom field by id (so a rename follows). */
export type StoredImportColumn = { position: number; field: string } | { position: number; custom_field_id: number };

/** The account's scheduled CSV import settings; at most one per account. */
@Entity({ schema: 'identity', name: 'import_profiles' })
export class ImportProfile {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ name: 'csv_url', type: 'text', nullable: true })
  csvUrl: string | null;

  @Column({ name: 'csv_user', type: 'text', nullable: true })
  csvUser: string | null;

  /** AES-256-GCM ciphertext (see import-profile.cipher.ts); never leaves the service. */
  @Column({ name: 'csv_password_encrypted', type: 'text', nullable: true })
  csvPasswordEncrypted: string | null;

  @Column({ name: 'has_headers', type: 'boolean', default: true })
  hasHeaders: boolean;

  /** Seven flags, Sunday first. */
  @Column({ name: 'csv_days', type: 'boolean', array: true })
  csvDays: boolean[];

  @Column({ name: 'csv_time', type: 'text', nullable: true })
  csvTime: string | null;

  @Column({ type: 'jsonb' })
  columns: StoredImportColumn[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
