import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import {
  COURSE_AUTHOR_ADDED_EVENT,
  COURSE_AUTHOR_REMOVED_EVENT,
  type CourseAuthorEventData,
  type CourseAuthorView,
  type DirectoryUser,
  type ListCourseAuthorsQuery,
  pageWindow,
  type RequestContext,
} from '@lms/contracts';
import { Database, InjectTenantRepository, Outbox, type TenantRepository } from '@lms/platform';
import { CourseTemplatesService } from '../course-templates/course-templates.service.js';
import { IdentityDirectory } from '../directory/identity-directory.js';
import { CourseAuthor } from './course-author.entity.js';
import { cannotBeAuthor, courseAuthorNotFound, lastAuthor } from './course-author.errors.js';

const AUTHORING_ROLES = ['author', 'admin'];

export function toCourseAuthorView(author: CourseAuthor, user: DirectoryUser | undefined): CourseAuthorView {
  return {
    id: String(author.userId),
    // A user identity no longer shows (hidden after deletion) is still the author on record.
    uid: user?.uid ?? '',
    name: user?.name ?? `User ${author.userId}`,
    email: user?.email ?? null,
    avatar_url: user?.avatar_url ?? null,
    deleted_at: user ? user.deleted_at : author.createdAt.toISOString(),
    added_at: author.createdAt.toISOString(),
  };
}

/** Who may edit a course. Identity says who a user is and which roles they hold; catalog keeps the list. */
@Injectable()
export class CourseAuthorsService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    private readonly templates: CourseTemplatesService,
    private readonly directory: IdentityDirectory,
    @InjectTenantRepository(CourseAuthor) private readonly authors: TenantRepository<CourseAuthor>,
  ) {}

  async list(ctx: RequestContext, courseId: number, query: ListCourseAuthorsQuery): Promise<[CourseAuthorView[], number]> {
    await this.templates.find(ctx, courseId);
    const { skip, take } = pageWindow(query);
    const [rows, total] = await this.authors.findAndCount(ctx, { where: { courseTemplateId: courseId }, order: { createdAt: 'ASC', userId: 'ASC' }, skip, take });
    const users = await this.directory.users(ctx, rows.map((r) => r.userId));
    return [rows.map((row) => toCourseAuthorView(row, users.get(row.userId))), total];
  }

  /**
   * All or nothing: every user must exist (not deleted), hold the author or admin role, and not be an
   * author already; otherwise a 400 names the first one that cannot be added.
   */
  async add(ctx: RequestContext, courseId: number, userIds: number[]): Promise<CourseAuthorView[]> {
    const users = await this.directory.users(ctx, userIds);
    const added = await this.db.transaction(async () => {
      await this.templates.lockForWrite(ctx, courseId);
      const existing = new Set((await this.authors.find(ctx, { where: { courseTemplateId: courseId, userId: In(userIds) } })).map((a) => a.userId));
      const seen = new Set<number>();
      for (const [i, userId] of userIds.entries()) {
        const user = users.get(userId);
        if (!user || user.deleted_at !== null) throw cannotBeAuthor(userId, i, 'no such user');
        if (!user.roles.some((role) => AUTHORING_ROLES.includes(role))) throw cannotBeAuthor(userId, i, 'the user has neither the author nor the admin role');
        if (existing.has(userId) || seen.has(userId)) throw cannotBeAuthor(userId, i, 'the user is an author of this course already');
        seen.add(userId);
      }
      const rows: CourseAuthor[] = [];
      for (const userId of userIds) {
        rows.push(await this.authors.insert(ctx, { courseTemplateId: courseId, userId }));
        const data: CourseAuthorEventData = { course_template_id: courseId, user_id: userId };
        await this.outbox.add(ctx, COURSE_AUTHOR_ADDED_EVENT, data, String(courseId));
      }
      return rows;
    });
    return added.map((row) => toCourseAuthorView(row, users.get(row.userId)));
  }

  /** A course always keeps one author; a deleted user stays an author until removed, under the same rule. */
  async remove(ctx: RequestContext, courseId: number, userId: number): Promise<void> {
    await this.db.transaction(async () => {
      await this.templates.lockForWrite(ctx, courseId);
      if ((await this.authors.count(ctx, { courseTemplateId: courseId, userId })) === 0) throw courseAuthorNotFound(courseId, userId);
      if ((await this.authors.count(ctx, { courseTemplateId: courseId })) === 1) throw lastAuthor(courseId);
      await this.authors.delete(ctx, { courseTemplateId: courseId, userId });
      const data: CourseAuthorEventData = { course_template_id: courseId, user_id: userId };
      await this.outbox.add(ctx, COURSE_AUTHOR_REMOVED_EVENT, data, String(courseId));
    });
  }
}
