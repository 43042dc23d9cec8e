import { Injectable } from '@nestjs/common';
import type { RequestContext, SessionView } from '@lms/contracts';
import { Database, IdentityDirectory } from '@lms/platform';
import type { Session } from './session.entity.js';

interface SessionFigures {
  registered: number;
  present: number;
  parts: number;
  conference: boolean;
  uuid: string;
}

/** Session records with their counts read from the rows, and their instructors from identity. */
@Injectable()
export class SessionPresenter {
  constructor(
    private readonly db: Database,
    private readonly directory: IdentityDirectory,
  ) {}

  async present(ctx: RequestContext, sessions: Session[], deletedAt = false): Promise<SessionView[]> {
    if (sessions.length === 0) return [];
    const ids = sessions.map((s) => s.id);
    const rows: (SessionFigures & { id: number })[] = await this.db.manager.query(
      `SELECT s.id,
              (SELECT count(*)::int FROM scheduling.registrations r WHERE r.account_id = s.account_id AND r.session_id = s.id AND r.deleted_at IS NULL) AS registered,
              (SELECT count(*)::int FROM scheduling.registrations r WHERE r.account_id = s.account_id AND r.session_id = s.id AND r.deleted_at IS NULL AND r.marked_complete_at IS NOT NULL) AS present,
              (SELECT count(*)::int FROM scheduling.sessions p WHERE p.account_id = s.account_id AND p.parent_id = s.id AND p.deleted_at IS NULL) AS parts,
              EXISTS (SELECT 1 FROM scheduling.web_conferences w WHERE w.account_id = s.account_id AND (w.session_id = s.id
                        OR w.session_id IN (SELECT p.id FROM scheduling.sessions p WHERE p.account_id = s.account_id AND p.parent_id = s.id AND p.deleted_at IS NULL))) AS conference,
              c.uuid::text AS uuid
         FROM scheduling.sessions s JOIN scheduling.live_courses c ON c.id = s.live_course_id
        WHERE s.account_id = $1 AND s.id = ANY($2::int[])`,
      [ctx.accountId, ids],
    );
    const figures = new Map(rows.map((r) => [r.id, r]));
    const users = await this.directory.users(ctx, sessions.flatMap((s) => s.instructorIds));
    return sessions.map((s) => {
      const f = figures.get(s.id);
      const view: SessionView = {
        id: s.id,
        start_at: s.startAt?.toISOString() ?? null,
        end_at: s.endAt?.toISOString() ?? null,
        location: s.location,
        seats: s.seats,
        registered_count: f?.registered ?? 0,
        present_count: f?.present ?? 0,
        parts_count: f?.parts ?? 0,
        parent_id: s.parentId,
        notes: s.notes,
        live_course_id: s.liveCourseId,
        concluded_at: s.concludedAt?.toISOString() ?? null,
        published_at: s.publishedAt?.toISOString() ?? null,
        timezone: s.timezone,
        enroll_url: `/enroll/live_courses/${f?.uuid ?? ''}/sessions/${s.id}`,
        has_web_conference: f?.conference ?? false,
        instuctors: s.instructorIds.map((id) => {
          const user = users.get(id);
          return { id, name: user?.name ?? `User ${id}`, email: user?.email ?? null, avatar_url: user?.avatar_url ?? null };
        }),
        created_at: s.createdAt.toISOString(),
        updated_at: s.updatedAt.toISOString(),
      };
      if (deletedAt) view.deleted_at = s.deletedAt?.toISOString() ?? null;
      return view;
    });
  }
}
