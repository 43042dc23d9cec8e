import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { ScormVersion } from '@lms/contracts';

/** A SCORM package of a course: its files are in the file store, listed in `scorm_package_files`. */
@Entity({ schema: 'catalog', name: 'scorm_packages' })
export class ScormPackage {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ name: 'course_template_id', type: 'integer' })
  courseTemplateId: number;

  @Column({ type: 'text' })
  version: ScormVersion;

  @Column({ type: 'text' })
  title: string;

  /** The launch SCO's href, relative to the package root, with its item parameters. */
  @Column({ name: 'launch_href', type: 'text' })
  launchHref: string;

  /** The launch SCO's item identifier. */
  @Column({ name: 'launch_sco', type: 'text' })
  launchSco: string;

  @Column({ name: 'files_count', type: 'integer' })
  filesCount: number;

  @Column({ type: 'bigint', transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  size: number;

  @Column({ name: 'created_by', type: 'integer' })
  createdBy: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

/** One attempt of one enrollment at a package: the CMI data its runtime committed, and what it rolled up to. */
@Entity({ schema: 'catalog', name: 'scorm_registrations' })
export class ScormRegistration {
  @Column({ type: 'integer', primary: true, generated: 'increment' })
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ name: 'enrollment_id', type: 'integer' })
  enrollmentId: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ name: 'course_template_id', type: 'integer' })
  courseTemplateId: number;

  @Column({ name: 'package_id', type: 'uuid' })
  packageId: string;

  @Column({ type: 'jsonb', nullable: true })
  cmi: Record<string, unknown> | null;

  @Column({ name: 'completion_status', type: 'text', nullable: true })
  completionStatus: string | null;

  @Column({ name: 'success_status', type: 'text', nullable: true })
  successStatus: string | null;

  /** 0–100, from the SCO's score (scaled, or raw within min/max). */
  @Column({ type: 'numeric', nullable: true, transformer: { to: (v: number | null) => v, from: (v: string | null) => (v === null ? null : Number(v)) } })
  score: number | null;

  /** 0–1. */
  @Column({ type: 'numeric', nullable: true, transformer: { to: (v: number | null) => v, from: (v: string | null) => (v === null ? null : Number(v)) } })
  progress: number | null;

  @Column({ type: 'integer', default: 0 })
  commits: number;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
