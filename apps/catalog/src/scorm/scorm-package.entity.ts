import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { ScormVersion } from '@lms/contracts';

/** One SCO of a package: its item identifier, its title, its href (relative to the package root, with the item's parameters). */
export interface PackageSco {
  identifier: string;
  title: string;
  href: string;
}

const numeric = { to: (v: number | null) => v, from: (v: string | null) => (v === null ? null : Number(v)) };

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

  /** The SCOs of the default organization in order (the table of contents; the first is the launch SCO). */
  @Column({ type: 'jsonb' })
  scos: PackageSco[];

  @Column({ name: 'files_count', type: 'integer' })
  filesCount: number;

  @Column({ type: 'bigint', transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  size: number;

  @Column({ name: 'created_by', type: 'integer' })
  createdBy: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

/**
 * What a SCORM runtime committed and what it says, kept alike for a whole attempt (ScormRegistration, the roll-up)
 * and for each SCO of it (ScormScoState). Not an entity: each table has these columns of its own.
 */
abstract class CommittedScormState {
  @Column({ type: 'jsonb', nullable: true })
  cmi: Record<string, unknown> | null;

  @Column({ name: 'completion_status', type: 'text', nullable: true })
  completionStatus: string | null;

  @Column({ name: 'success_status', type: 'text', nullable: true })
  successStatus: string | null;

  /** 0–100, from the SCO's score (scaled, or raw within min/max). */
  @Column({ type: 'numeric', nullable: true, transformer: numeric })
  score: number | null;

  /** 0–1. */
  @Column({ type: 'numeric', nullable: true, transformer: numeric })
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

/** One attempt of one enrollment at a package: the CMI data its runtime committed, and what it rolled up to. */
@Entity({ schema: 'catalog', name: 'scorm_registrations' })
export class ScormRegistration extends CommittedScormState {
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

  /** Set when a newer attempt of the enrollment replaced this one before it was completed (`every_launch`). */
  @Column({ name: 'superseded_at', type: 'timestamptz', nullable: true })
  supersededAt: Date | null;
}

/** What one SCO of an attempt committed: its own CMI data and what it says (the attempt rolls these up). */
@Entity({ schema: 'catalog', name: 'scorm_sco_states' })
export class ScormScoState extends CommittedScormState {
  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @PrimaryColumn({ name: 'registration_id', type: 'integer' })
  registrationId: number;

  /** The SCO's item identifier in the package. */
  @PrimaryColumn({ type: 'text' })
  sco: string;
}
