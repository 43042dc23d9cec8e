import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { IsNull } from 'typeorm';
import type { AuthorLtiContentItemView, LtiContentItemRequest, LtiLaunchView, RequestContext } from '@lms/contracts';
import { Database, InjectTenantRepository, type TenantRepository } from '@lms/platform';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import { CourseTemplatesService } from '../course-templates/course-templates.service.js';
import { IdentityDirectory } from '../directory/identity-directory.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { CourseCompletion } from '../learner-courses/course-completion.service.js';
import { ProgramCourse } from '../programs/program-course.entity.js';
import { servedCourse } from '../slide-responses/slide-responses.service.js';
import { Program } from '../programs/program.entity.js';
import { LtiContentItem } from './lti-content-item.entity.js';
import { ltiContentItemNotFound, ltiProgramNotFound } from './lti.errors.js';
import { oauthNonce, oauthSignature } from './oauth1-signature.js';

export const toAuthorView = (item: LtiContentItem): AuthorLtiContentItemView => ({
  id: item.id,
  title: item.title,
  description: item.description,
  course_template_id: item.courseTemplateId,
  launch_url: item.launchUrl,
  consumer_key: item.consumerKey,
  custom_field: item.customField,
  created_at: item.createdAt.toISOString(),
});

/** "Ann Lee Archer" -> given "Ann Lee", family "Archer"; one word is a given name. */
function splitName(full: string): { given: string; family: string } {
  const trimmed = full.trim();
  const cut = trimmed.lastIndexOf(' ');
  return cut < 0 ? { given: trimmed, family: '' } : { given: trimmed.slice(0, cut), family: trimmed.slice(cut + 1) };
}

/** LTI 1.1 content items (docs/learner.md): tool links of courses, their learners' completions, and signed launches. */
@Injectable()
export class LtiService {
  constructor(
    private readonly db: Database,
    private readonly templates: CourseTemplatesService,
    private readonly directory: IdentityDirectory,
    private readonly completion: CourseCompletion,
    @InjectTenantRepository(LtiContentItem) private readonly items: TenantRepository<LtiContentItem>,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
    @InjectTenantRepository(Enrollment) private readonly enrollments: TenantRepository<Enrollment>,
    @InjectTenantRepository(Program) private readonly programs: TenantRepository<Program>,
    @InjectTenantRepository(ProgramCourse) private readonly programCourses: TenantRepository<ProgramCourse>,
  ) {}

  /** An author of the course (or an administrator) adds tool links to it: an authoring write, so not to an archived course (400). */
  async create(ctx: RequestContext, courseTemplateId: number, requests: LtiContentItemRequest[]): Promise<LtiContentItem[]> {
    return this.db.transaction(async () => {
      await this.templates.lockForWrite(ctx, courseTemplateId);
      const created: LtiContentItem[] = [];
      for (const r of requests) {
        created.push(
          await this.items.insert(ctx, {
            courseTemplateId,
            title: r.title.trim(),
            description: r.description ?? '',
            launchUrl: r.launch_url,
            consumerKey: r.consumer_key,
            consumerSecret: r.consumer_secret,
            customField: r.custom_field ?? '',
            createdBy: ctx.userId,
          }),
        );
      }
      return created;
    });
  }

  /**
   * The item, when the caller is enrolled (live enrollment) in its course and the course is served to learners
   * (published, not archived: the rule of its slides); else 404 as for an unknown id.
   */
  async forLearner(ctx: RequestContext, id: number): Promise<{ item: LtiContentItem; enrollment: Enrollment }> {
    const item = await this.items.findOne(ctx, { id });
    const [course, enrollment] = item
      ? await Promise.all([
          this.courses.findOne(ctx, { id: item.courseTemplateId }),
          this.enrollments.findOne(ctx, { userId: ctx.userId, enrollableType: 'CourseTemplate', enrollableId: item.courseTemplateId, deletedAt: IsNull() }),
        ])
      : [null, null];
    if (!item || !course || !servedCourse(course) || !enrollment) throw ltiContentItemNotFound(id);
    return { item, enrollment };
  }

  /** Completes the caller's enrollment in the item's course as `POST /api/learner/courses/:id/complete` does (once: a completed one stays as it is). */
  async complete(ctx: RequestContext, id: number): Promise<void> {
    const { enrollment } = await this.forLearner(ctx, id);
    // Taken away from learners since `forLearner` looked: the 404 it answers now.
    await this.completion.complete(ctx, enrollment, () => ltiContentItemNotFound(id));
  }

  /**
   * The LTI 1.1 basic launch of the item for the caller (an administrator previewing it): every launch
   * parameter the spec lists, signed with OAuth 1.0a HMAC-SHA1 over `POST launch_url` with the item's
   * consumer key and secret. With a program, the program is the launch's context.
   */
  async launch(ctx: RequestContext, id: number, programId: number | undefined): Promise<LtiLaunchView> {
    const item = await this.items.findOne(ctx, { id });
    if (!item) throw ltiContentItemNotFound(id);
    // The program is the launch's context, so it must hold the item's course: another one is not found here.
    const [program, membership] = programId === undefined ? [null, null] : await Promise.all([
      this.programs.findOne(ctx, { id: programId }),
      this.programCourses.findOne(ctx, { programId, courseTemplateId: item.courseTemplateId }),
    ]);
    if (programId !== undefined && (!program || !membership)) throw ltiProgramNotFound(programId, id);
    const [course, users, subAccounts] = await Promise.all([
      this.courses.findOne(ctx, { id: item.courseTemplateId }),
      this.directory.users(ctx, [ctx.userId]),
      this.directory.subAccounts(ctx),
    ]);
    const user = users.get(ctx.userId);
    const name = user?.name ?? '';
    const { given, family } = splitName(name);
    const root = subAccounts.root ?? subAccounts.current;
    const params: Record<string, string> = {
      context_id: program ? `program-${program.id}` : `course-${item.courseTemplateId}`,
      context_label: program?.title ?? course?.title ?? '',
      custom_field: item.customField,
      launch_presentation_document_target: 'iframe',
      launch_presentation_return_url: `/api/learner/lti/content_items/${item.id}`,
      lis_person_contact_email_primary: user?.email ?? '',
      lis_person_name_family: family,
      lis_person_name_full: name,
      lis_person_name_given: given,
      lti_message_type: 'basic-lti-launch-request',
      lti_version: 'LTI-1p0',
      oauth_callback: 'about:blank',
      oauth_consumer_key: item.consumerKey,
      oauth_nonce: oauthNonce(),
      oauth_signature_method: 'HMAC-SHA1',
      oauth_timestamp: String(Math.floor(Date.now() / 1000)),
      oauth_version: '1.0',
      resource_link_description: item.description,
      resource_link_id: `lti-content-item-${item.id}`,
      roles: ctx.roles.includes('admin') ? 'Administrator' : ctx.roles.includes('author') ? 'Instructor' : 'Learner',
      tool_consumer_info_product_family_code: 'learning-service',
      // A stable, opaque id of the account: tools key their data by it.
      tool_consumer_instance_guid: createHash('sha256').update(`learning-service-account:${ctx.accountId}`).digest('hex').slice(0, 32),
      tool_consumer_instance_name: root?.name ?? '',
      tool_consumer_instance_url: '/',
      user_id: String(ctx.userId),
    };
    params.oauth_signature = oauthSignature('POST', item.launchUrl, params, item.consumerSecret);
    const launchData = Object.fromEntries(Object.keys(params).sort().map((k) => [k, params[k]])) as LtiLaunchView['launch_data'];
    return { lti_content_item_id: String(item.id), program_id: program ? String(program.id) : '', launch_url: item.launchUrl, launch_data: launchData };
  }
}
