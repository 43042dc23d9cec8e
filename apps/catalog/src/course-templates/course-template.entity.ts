import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { CourseType, ScormSettingsView } from '@lms/contracts';

/** The template fields publish copies into `published` (what learners see). */
export type PublishedTemplateFields = Record<string, unknown>;

@Entity({ schema: 'catalog', name: 'course_templates' })
export class CourseTemplate {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ name: 'sub_account_id', type: 'integer', nullable: true })
  subAccountId: number | null;

  /** The creating author; `links.author` keeps pointing at them whatever happens to the author list. */
  @Column({ name: 'author_id', type: 'integer' })
  authorId: number;

  @Column({ type: 'text' })
  title: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ name: 'course_type', type: 'text' })
  courseType: CourseType;

  @Column({ name: 'default_days_until_due', type: 'integer', default: 0 })
  defaultDaysUntilDue: number;

  @Column({ name: 'default_due_on_date', type: 'date', nullable: true })
  defaultDueOnDate: string | null;

  @Column({ name: 'due_date_type', type: 'text', nullable: true })
  dueDateType: string | null;

  @Column({ name: 'external_course_id', type: 'text', nullable: true })
  externalCourseId: string | null;

  @Column({ name: 'third_party_course_id', type: 'text', nullable: true })
  thirdPartyCourseId: string | null;

  @Column({ name: 'has_certificate', type: 'boolean', default: false })
  hasCertificate: boolean;

  @Column({ name: 'passing_threshold', type: 'integer', nullable: true })
  passingThreshold: number | null;

  @Column({ name: 'max_quiz_attempts', type: 'integer', nullable: true })
  maxQuizAttempts: number | null;

  @Column({ name: 'continuing_education_credits', type: 'integer', nullable: true })
  continuingEducationCredits: number | null;

  @Column({ name: 'open_book', type: 'boolean', default: false })
  openBook: boolean;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  tags: string[];

  @Column({ name: 'matching_tags', type: 'text', array: true, default: () => "'{}'" })
  matchingTags: string[];

  @Column({ name: 'maintain_branding_in_sub_account', type: 'boolean', default: false })
  maintainBrandingInSubAccount: boolean;

  @Column({ name: 'locked_attributes_enabled', type: 'boolean', default: false })
  lockedAttributesEnabled: boolean;

  @Column({ name: 'locked_attributes', type: 'text', array: true, default: () => "'{}'" })
  lockedAttributes: string[];

  @Column({ type: 'boolean', default: false })
  retain: boolean;

  @Column({ name: 'retain_intervals', type: 'integer', array: true, default: () => "'{}'" })
  retainIntervals: number[];

  @Column({ name: 'show_correct_response', type: 'boolean', default: false })
  showCorrectResponse: boolean;

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

  /** SCORM launch settings; null for every other course type. */
  @Column({ type: 'jsonb', nullable: true })
  scorm: ScormSettingsView | null;

  /** The SCORM package new attempts play (docs/scorm.md); null until one is uploaded. */
  @Column({ name: 'scorm_package_id', type: 'uuid', nullable: true })
  scormPackageId: string | null;

  @Column({ name: 'external_status', type: 'text' })
  externalStatus: string;

  @Column({ name: 'external_status_message', type: 'text', default: '' })
  externalStatusMessage: string;

  @Column({ name: 'is_published', type: 'boolean', default: false })
  isPublished: boolean;

  @Column({ name: 'has_unpublished_changes', type: 'boolean', default: true })
  hasUnpublishedChanges: boolean;

  @Column({ type: 'jsonb', nullable: true })
  published: PublishedTemplateFields | null;

  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  /** Archived: soft-deleted, restorable. Not a @DeleteDateColumn, so archived courses stay findable for show, restore and the 400s. */
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
