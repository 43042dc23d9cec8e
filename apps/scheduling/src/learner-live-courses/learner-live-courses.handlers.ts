import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { LEARNER_LIVE_COURSE_SUBJECTS, type LiveCourseSummariesReply, LiveCourseSummariesRequest, type LiveCourseSummary, type RpcRequest } from '@lms/contracts';
import { Database, Handles } from '@lms/platform';

interface SummaryRow {
  id: number;
  title: string;
  description: string | null;
  has_certificate: boolean;
  location: string | null;
  sessions_count: string;
  next_session_start_at: Date | null;
  deleted_at: Date | null;
}

/** Catalog's questions about the live courses of learners' live trainings (LEARNER_LIVE_COURSE_SUBJECTS). */
@Controller()
export class LearnerLiveCoursesHandlers {
  constructor(private readonly db: Database) {}

  /**
   * One query for all the courses: future top-level sessions counted, the next one's start, and the
   * location of the next session (else of the latest one that had a location).
   */
  @Handles(LEARNER_LIVE_COURSE_SUBJECTS.summaries, { body: LiveCourseSummariesRequest })
  async summaries(@Payload() { ctx, body }: RpcRequest<LiveCourseSummariesRequest>): Promise<LiveCourseSummariesReply> {
    if (body.ids.length === 0) return { live_courses: [] };
    const rows: SummaryRow[] = await this.db.manager.query(
      `SELECT c.id, c.title, c.description, c.has_certificate, c.deleted_at,
              (SELECT s.location FROM scheduling.sessions s
                WHERE s.account_id = c.account_id AND s.live_course_id = c.id AND s.deleted_at IS NULL AND s.parent_id IS NULL AND s.location IS NOT NULL
                ORDER BY (s.start_at > now()) DESC NULLS LAST, CASE WHEN s.start_at > now() THEN s.start_at END ASC, s.start_at DESC NULLS LAST, s.id LIMIT 1) AS location,
              (SELECT count(*) FROM scheduling.sessions s
                WHERE s.account_id = c.account_id AND s.live_course_id = c.id AND s.deleted_at IS NULL AND s.parent_id IS NULL AND s.start_at > now()) AS sessions_count,
              (SELECT min(s.start_at) FROM scheduling.sessions s
                WHERE s.account_id = c.account_id AND s.live_course_id = c.id AND s.deleted_at IS NULL AND s.parent_id IS NULL AND s.start_at > now()) AS next_session_start_at
         FROM scheduling.live_courses c
        WHERE c.account_id = $1 AND c.id = ANY($2)
        ORDER BY c.id`,
      [ctx.accountId, body.ids],
    );
    return {
      live_courses: rows.map(
        (r): LiveCourseSummary => ({
          id: r.id,
          title: r.title,
          description: r.description,
          has_certificate: r.has_certificate,
          location: r.location,
          sessions_count: Number(r.sessions_count),
          next_session_start_at: r.next_session_start_at ? new Date(r.next_session_start_at).toISOString() : null,
          deleted_at: r.deleted_at ? new Date(r.deleted_at).toISOString() : null,
        }),
      ),
    };
  }
}
