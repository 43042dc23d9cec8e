import { Injectable } from '@nestjs/common';
import { In, IsNull } from 'typeorm';
import { type ListSlideCommentsQuery, pageWindow, type RequestContext, type SlideCommentView } from '@lms/contracts';
import { Database, InjectTenantRepository, type TenantRepository, unlessGone } from '@lms/platform';
import { AuthoringGuard } from '../authoring/authoring-guard.js';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import { IdentityDirectory } from '../directory/identity-directory.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { servedCourse, servedSlide } from '../slide-responses/slide-responses.service.js';
import { Slide } from '../slides/slide.entity.js';
import { commentNotFound, commentsDisabled, slideNotFound } from './slide-comment.errors.js';
import { SlideComment, SlideCommentVote } from './slide-comment.entity.js';

/** Who the caller is to the slide's course, and whether the slide takes comments. */
interface SlideAccess {
  slide: Slide;
  courseAuthor: boolean;
  allowsComments: boolean;
}

/**
 * Slide comments (docs/learner.md): only the course's enrolled learners and its authors (administrators
 * included) see and write them; others get the 404 of an unknown slide. Authors of a comment edit and
 * delete it, course authors delete any; one upvote per user; writes need the slide's `allow_comments`.
 */
@Injectable()
export class SlideCommentsService {
  constructor(
    private readonly db: Database,
    private readonly guard: AuthoringGuard,
    private readonly directory: IdentityDirectory,
    @InjectTenantRepository(SlideComment) private readonly comments: TenantRepository<SlideComment>,
    @InjectTenantRepository(SlideCommentVote) private readonly votes: TenantRepository<SlideCommentVote>,
    @InjectTenantRepository(Slide) private readonly slides: TenantRepository<Slide>,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
    @InjectTenantRepository(Enrollment) private readonly enrollments: TenantRepository<Enrollment>,
  ) {}

  async list(ctx: RequestContext, courseId: number, slideId: number, query: ListSlideCommentsQuery): Promise<[SlideCommentView[], number]> {
    await this.access(ctx, courseId, slideId);
    const { skip, take } = pageWindow(query);
    const [rows, total] = await this.comments.findAndCount(ctx, { where: { slideId }, order: { createdAt: 'ASC', id: 'ASC' }, skip, take });
    return [await this.present(ctx, rows), total];
  }

  async create(ctx: RequestContext, courseId: number, slideId: number, body: string): Promise<SlideCommentView> {
    const { allowsComments } = await this.access(ctx, courseId, slideId);
    if (!allowsComments) throw commentsDisabled(slideId);
    // A publish may delete the slide between the look and the insert: then it is the 404 any later request gets.
    const row = await unlessGone(
      () => this.comments.insert(ctx, { courseTemplateId: courseId, slideId, userId: ctx.userId, body, upvotesCount: 0 }),
      () => slideNotFound(courseId, slideId),
    );
    return (await this.present(ctx, [row]))[0];
  }

  async show(ctx: RequestContext, courseId: number, slideId: number, id: number): Promise<SlideCommentView> {
    await this.access(ctx, courseId, slideId);
    return (await this.present(ctx, [await this.find(ctx, slideId, id)]))[0];
  }

  async update(ctx: RequestContext, courseId: number, slideId: number, id: number, body: string): Promise<SlideCommentView> {
    const { allowsComments } = await this.access(ctx, courseId, slideId);
    const comment = await this.find(ctx, slideId, id);
    // Another user's comment is not the caller's to change: the 404 of design §10, as for any record not theirs.
    if (comment.userId !== ctx.userId) throw commentNotFound(id);
    if (!allowsComments) throw commentsDisabled(slideId);
    // The body alone: a whole-row save would write back the upvote count as read, losing votes counted meanwhile.
    await this.comments.update(ctx, { id: comment.id }, { body });
    return (await this.present(ctx, [await this.find(ctx, slideId, id)]))[0];
  }

  async delete(ctx: RequestContext, courseId: number, slideId: number, id: number): Promise<void> {
    const { courseAuthor } = await this.access(ctx, courseId, slideId);
    const comment = await this.find(ctx, slideId, id);
    if (comment.userId !== ctx.userId && !courseAuthor) throw commentNotFound(id);
    await this.comments.delete(ctx, { id: comment.id });
  }

  /** One upvote per user: the vote's key decides, and the count moves in the same transaction. Again changes nothing. */
  async upvote(ctx: RequestContext, courseId: number, slideId: number, id: number): Promise<SlideCommentView> {
    const { allowsComments } = await this.access(ctx, courseId, slideId);
    await this.find(ctx, slideId, id);
    if (!allowsComments) throw commentsDisabled(slideId);
    await this.db.transaction(async () => {
      // The comment may go with its slide between the look and the vote: the 404 of a comment that is gone.
      const inserted = await unlessGone(() => this.votes.insertNew(ctx, [{ commentId: id, userId: ctx.userId }], ['comment_id']), () => commentNotFound(id));
      if (inserted.length > 0) await this.comments.update(ctx, { id }, { upvotesCount: () => 'upvotes_count + 1' });
    });
    return (await this.present(ctx, [await this.find(ctx, slideId, id)]))[0];
  }

  private async find(ctx: RequestContext, slideId: number, id: number): Promise<SlideComment> {
    const comment = await this.comments.findOne(ctx, { id, slideId });
    return comment ?? Promise.reject(commentNotFound(id));
  }

  /**
   * Authors reach every slide of their course (a draft, or a published one whose deletion is still a draft);
   * learners exactly the slides they are served (`servedCourse`, `servedSlide`), the rule the slides themselves follow.
   */
  private async access(ctx: RequestContext, courseId: number, slideId: number): Promise<SlideAccess> {
    const [course, slide] = await Promise.all([this.courses.findOne(ctx, { id: courseId }), this.slides.findOne(ctx, { id: slideId, courseTemplateId: courseId })]);
    if (!course || !slide) throw slideNotFound(courseId, slideId);
    const courseAuthor = await this.guard.canEdit(ctx, { type: 'CourseTemplate', id: courseId });
    if (!courseAuthor) {
      if (!servedCourse(course) || !servedSlide(slide)) throw slideNotFound(courseId, slideId);
      const enrolled = await this.enrollments.count(ctx, { userId: ctx.userId, enrollableType: 'CourseTemplate', enrollableId: courseId, deletedAt: IsNull() });
      if (enrolled === 0) throw slideNotFound(courseId, slideId);
    }
    const attributes = courseAuthor ? (slide.publishedAttributes ?? slide.draftAttributes) : slide.publishedAttributes;
    return { slide, courseAuthor, allowsComments: attributes?.allow_comments === true };
  }

  private async present(ctx: RequestContext, rows: SlideComment[]): Promise<SlideCommentView[]> {
    if (rows.length === 0) return [];
    const [users, mine] = await Promise.all([
      this.directory.users(ctx, rows.map((r) => r.userId)),
      this.votes.find(ctx, { where: { userId: ctx.userId, commentId: In(rows.map((r) => r.id)) } }),
    ]);
    const upvoted = new Set(mine.map((v) => v.commentId));
    return rows.map((r) => {
      const user = users.get(r.userId);
      return {
        id: r.id,
        course_id: r.courseTemplateId,
        slide_id: r.slideId,
        body: r.body,
        author: { id: r.userId, name: user?.name ?? `User ${r.userId}`, avatar_url: user?.avatar_url ?? null },
        upvotes_count: r.upvotesCount,
        upvoted: upvoted.has(r.id),
        created_at: r.createdAt.toISOString(),
        updated_at: r.updatedAt.toISOString(),
      };
    });
  }
}
