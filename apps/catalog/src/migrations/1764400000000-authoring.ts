import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The authoring half of the catalog: course templates with their authors and slides, tasks, and the
 * enrollment and program-membership rows that the counts and `program_ids` are read from (their own
 * features fill them). Every index starts with account_id (design §4).
 */
export class Authoring1764400000000 implements MigrationInterface {
  name = 'Authoring1764400000000';

  async up(q: QueryRunner): Promise<void> {
    // Trigram indexes make the case-insensitive title search an index lookup; pg_trgm ships with Postgres
    // contrib (and with the embedded Postgres) and is a trusted extension since Postgres 13.
    await q.query('CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public');
    await q.query(`
      CREATE TABLE catalog.course_templates (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        sub_account_id integer,
        author_id integer NOT NULL,
        title text NOT NULL,
        description text,
        course_type text NOT NULL CHECK (course_type IN ('native', 'scorm', 'third_party_a', 'third_party_b')),
        default_days_until_due integer NOT NULL DEFAULT 0,
        default_due_on_date date,
        due_date_type text,
        external_course_id text,
        third_party_course_id text,
        has_certificate boolean NOT NULL DEFAULT false,
        passing_threshold integer,
        max_quiz_attempts integer,
        continuing_education_credits integer,
        open_book boolean NOT NULL DEFAULT false,
        tags text[] NOT NULL DEFAULT '{}',
        matching_tags text[] NOT NULL DEFAULT '{}',
        maintain_branding_in_sub_account boolean NOT NULL DEFAULT false,
        locked_attributes_enabled boolean NOT NULL DEFAULT false,
        locked_attributes text[] NOT NULL DEFAULT '{}',
        retain boolean NOT NULL DEFAULT false,
        retain_intervals integer[] NOT NULL DEFAULT '{}',
        show_correct_response boolean NOT NULL DEFAULT false,
        expires boolean NOT NULL DEFAULT false,
        default_days_until_expiration integer,
        auto_re_enroll boolean NOT NULL DEFAULT false,
        re_enrollment_period integer,
        open_enrollment boolean NOT NULL DEFAULT false,
        uuid uuid NOT NULL DEFAULT gen_random_uuid(),
        scorm jsonb,
        external_status text NOT NULL,
        external_status_message text NOT NULL DEFAULT '',
        is_published boolean NOT NULL DEFAULT false,
        has_unpublished_changes boolean NOT NULL DEFAULT true,
        published jsonb,
        published_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await q.query('CREATE UNIQUE INDEX course_templates_uuid ON catalog.course_templates (uuid)');
    // One index per sort, each ending in id (stable pages) and carrying every column the filters and the
    // titles read, so a page of ids is an index-only scan however deep the page (the rows are then
    // fetched by id), and deleted rows are filtered inside the index.
    const covered = 'INCLUDE (deleted_at, course_type, is_published, has_certificate, title, created_at, updated_at)';
    await q.query(`CREATE INDEX course_templates_newest ON catalog.course_templates (account_id, created_at DESC, id DESC) ${covered}`);
    await q.query(`CREATE INDEX course_templates_updated ON catalog.course_templates (account_id, updated_at DESC, id DESC) ${covered}`);
    await q.query(`CREATE INDEX course_templates_title ON catalog.course_templates (account_id, lower(title), id) ${covered}`);
    await q.query(`CREATE INDEX course_templates_archived ON catalog.course_templates (account_id, deleted_at DESC NULLS LAST, id DESC) ${covered}`);
    // The page total reads this narrow index alone (index-only count), not the heap.
    await q.query(`CREATE INDEX course_templates_filters ON catalog.course_templates (account_id, course_type, is_published, has_certificate)
                   INCLUDE (deleted_at, created_at, updated_at)`);
    await q.query('CREATE INDEX course_templates_title_trgm ON catalog.course_templates USING gin (title public.gin_trgm_ops)');

    await q.query(`
      CREATE TABLE catalog.course_authors (
        account_id integer NOT NULL,
        course_template_id integer NOT NULL REFERENCES catalog.course_templates(id) ON DELETE CASCADE,
        user_id integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (account_id, course_template_id, user_id)
      )`);
    await q.query('CREATE INDEX course_authors_user ON catalog.course_authors (account_id, user_id, course_template_id)');

    // new_position is the draft order (dense, 1..n among the live drafts; NULL once deleted pending publish),
    // position the published one. The deferred key lets one transaction shift a run of slides.
    await q.query(`
      CREATE TABLE catalog.slides (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        course_template_id integer NOT NULL REFERENCES catalog.course_templates(id) ON DELETE CASCADE,
        draft_attributes jsonb NOT NULL,
        published_attributes jsonb,
        new_position integer,
        position integer,
        estimated_time integer NOT NULL DEFAULT 0,
        attachments jsonb NOT NULL DEFAULT '[]',
        published_at timestamptz,
        removed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT slides_draft_order UNIQUE (course_template_id, new_position) DEFERRABLE INITIALLY DEFERRED,
        CHECK ((removed_at IS NULL) = (new_position IS NOT NULL))
      )`);
    await q.query('CREATE INDEX slides_course ON catalog.slides (account_id, course_template_id, new_position)');

    await q.query(`
      CREATE TABLE catalog.tasks (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        sub_account_id integer,
        author_id integer NOT NULL,
        title text NOT NULL,
        instructions text,
        description text,
        structured_body text,
        is_published boolean NOT NULL DEFAULT false,
        has_unpublished_changes boolean NOT NULL DEFAULT true,
        has_certificate boolean NOT NULL DEFAULT false,
        requires_approval boolean NOT NULL DEFAULT false,
        blocks_progress boolean NOT NULL DEFAULT false,
        requires_evidence boolean NOT NULL DEFAULT false,
        attachments jsonb NOT NULL DEFAULT '[]',
        default_approver_type text,
        default_approver_id integer,
        due_date_type text NOT NULL DEFAULT 'relative',
        default_due_on_date date,
        default_days_until_due integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await q.query('CREATE INDEX tasks_account ON catalog.tasks (account_id, created_at DESC, id DESC) WHERE deleted_at IS NULL');

    // Filled by the enrollment feature; the authoring views count from it.
    await q.query(`
      CREATE TABLE catalog.enrollments (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        enrollable_type text NOT NULL CHECK (enrollable_type IN ('CourseTemplate', 'Task')),
        enrollable_id integer NOT NULL,
        user_id integer NOT NULL,
        sub_account_id integer,
        required boolean NOT NULL DEFAULT true,
        state text NOT NULL DEFAULT 'assigned',
        started_at timestamptz,
        completed_at timestamptz,
        due_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await q.query('CREATE INDEX enrollments_enrollable ON catalog.enrollments (account_id, enrollable_type, enrollable_id) WHERE deleted_at IS NULL');

    // Filled by the program feature; `program_ids` are read from it.
    await q.query(`
      CREATE TABLE catalog.program_courses (
        account_id integer NOT NULL,
        program_id integer NOT NULL,
        course_template_id integer NOT NULL REFERENCES catalog.course_templates(id) ON DELETE CASCADE,
        PRIMARY KEY (account_id, course_template_id, program_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['program_courses', 'enrollments', 'tasks', 'slides', 'course_authors', 'course_templates']) await q.query(`DROP TABLE catalog.${table}`);
  }
}
