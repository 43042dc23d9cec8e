import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity({ schema: 'scheduling', name: 'live_courses' })
export class LiveCourse {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ name: 'author_id', type: 'integer' })
  authorId: number;

  @Column({ type: 'text' })
  title: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ name: 'external_course_id', type: 'text', nullable: true })
  externalCourseId: string | null;

  @Column({ name: 'has_certificate', type: 'boolean', default: false })
  hasCertificate: boolean;

  @Column({ type: 'boolean', default: false })
  expires: boolean;

  @Column({ name: 'default_days_until_expiration', type: 'integer', nullable: true })
  defaultDaysUntilExpiration: number | null;

  @Column({ name: 'auto_re_enroll', type: 'boolean', default: false })
  autoReEnroll: boolean;

  @Column({ name: 're_enrollment_period', type: 'integer', nullable: true })
  reEnrollmentPeriod: number | null;

  @Column({ name: 'open_enrollment', type: 'boolean', default: false })
  openEnrollment: boolean;

  @Column({ type: 'uuid' })
  uuid: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  /** Soft-deleted: listed only with only_deleted/with_deleted, unknown to every other route. */
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
