import { Injectable } from '@nestjs/common';
import { Between, In, IsNull } from 'typeorm';
import {
  type ListSlidesQuery,
  MAX_SLIDES_PER_COURSE,
  pageWindow,
  type RequestContext,
  type SlideAttributesView,
  type SlideChanges,
  type SlideInput,
} from '@lms/contracts';
import { Database, InjectTenantRepository, type TenantRepository, type TenantScope } from '@lms/platform';
import { CourseTemplatesService } from '../course-templates/course-templates.service.js';
import { Slide } from './slide.entity.js';
import { slideNotFound, tooManySlides } from './slide.errors.js';

/** Validated DTO instances become plain JSON for the jsonb column (no class prototypes, no undefined keys). */
const plain = (attributes: object): SlideAttributesView => JSON.parse(JSON.stringify(attributes)) as SlideAttributesView;

/**
 * Slides of a course, edited as drafts. Every write runs under the course's row lock (FOR NO KEY UPDATE), so
 * writes to one course's slides run one after another: draft positions stay 1..n, dense and unique
 * (the deferred unique key is the last word), however many moves arrive at once.
 */
@Injectable()
export class SlidesService {
  constructor(
    private readonly db: Database,
    private readonly templates: CourseTemplatesService,
    @InjectTenantRepository(Slide) private readonly slides: TenantRepository<Slide>,
  ) {}

  /** The live drafts in draft order; deleted drafts waiting for the next publish are gone for authors. */
  async list(ctx: RequestContext, courseId: number, query: ListSlidesQuery): Promise<[Slide[], number]> {
    await this.templates.find(ctx, courseId);
    const { skip, take } = pageWindow(query);
    return this.slides.findAndCount(ctx, { where: { courseTemplateId: courseId, removedAt: IsNull() }, order: { newPosition: 'ASC' }, skip, take });
  }

  async show(ctx: RequestContext, courseId: number, id: number): Promise<Slide> {
    await this.templates.find(ctx, courseId);
    return this.find(ctx, courseId, id);
  }

  /** Inserts each slide at its new_position (clamped to 1..n+1; absent appends), shifting the ones after it. All or nothing. */
  async create(ctx: RequestContext, courseId: number, inputs: SlideInput[]): Promise<Slide[]> {
    return this.db.transaction(async () => {
      await this.templates.lockForWrite(ctx, courseId);
      let count = await this.liveCount(ctx, courseId);
      if (count + inputs.length > MAX_SLIDES_PER_COURSE) throw tooManySlides(courseId);
      const created: Slide[] = [];
      for (const input of inputs) {
        const position = Math.min(input.new_position ?? count + 1, count + 1);
        await this.shift(ctx, courseId, position, count, +1);
        created.push(
          await this.slides.insert(ctx, {
            courseTemplateId: courseId,
            draftAttributes: plain(input.draft_attributes),
            newPosition: position,
            estimatedTime: input.estimated_time ?? 0,
            attachments: input.attachments ?? [],
          }),
        );
        count++;
      }
      await this.templates.markChanged(ctx, courseId);
      // Read back, as the shifts moved the earlier ones: one query, in the order they were given.
      const order = created.map((slide) => slide.id);
      const fresh = await this.slides.find(ctx, { where: { id: In(order) } });
      return fresh.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
    });
  }

  /** Changes the draft; a new_position (clamped to 1..n) moves the slide and closes the gap it leaves. */
  async update(ctx: RequestContext, courseId: number, id: number, changes: SlideChanges): Promise<Slide> {
    return this.db.transaction(async () => {
      await this.templates.lockForWrite(ctx, courseId);
      const slide = await this.find(ctx, courseId, id);
      if (changes.draft_attributes !== undefined) slide.draftAttributes = plain(changes.draft_attributes);
      if (changes.estimated_time !== undefined) slide.estimatedTime = changes.estimated_time;
      if (changes.attachments !== undefined) slide.attachments = changes.attachments;
      const from = slide.newPosition as number;
      if (changes.new_position !== undefined) {
        const to = Math.min(changes.new_position, await this.liveCount(ctx, courseId));
        if (to < from) await this.shift(ctx, courseId, to, from - 1, +1);
        if (to > from) await this.shift(ctx, courseId, from + 1, to, -1);
        slide.newPosition = to;
      }
      await this.slides.save(ctx, slide);
      await this.templates.markChanged(ctx, courseId);
      return this.find(ctx, courseId, id);
    });
  }

  /**
   * A draft never published goes at once; a published slide leaves the drafts now and the published
   * course at its next publish. Either way the slides after it move up one.
   */
  async delete(ctx: RequestContext, courseId: number, id: number): Promise<void> {
    await this.db.transaction(async () => {
      await this.templates.lockForWrite(ctx, courseId);
      const slide = await this.find(ctx, courseId, id);
      const from = slide.newPosition as number;
      if (slide.publishedAt === null) await this.slides.remove(ctx, slide);
      else await this.slides.update(ctx, { id }, { removedAt: new Date(), newPosition: null });
      await this.shift(ctx, courseId, from + 1, Number.MAX_SAFE_INTEGER, -1);
      await this.templates.markChanged(ctx, courseId);
    });
  }

  private async find(scope: TenantScope, courseId: number, id: number): Promise<Slide> {
    return (await this.slides.findOne(scope, { id, courseTemplateId: courseId, removedAt: IsNull() })) ?? Promise.reject(slideNotFound(courseId, id));
  }

  private liveCount(scope: TenantScope, courseId: number): Promise<number> {
    return this.slides.count(scope, { courseTemplateId: courseId, removedAt: IsNull() });
  }

  /** Moves the live drafts at positions from..to by `by` (the unique key is checked at commit). */
  private async shift(scope: TenantScope, courseId: number, from: number, to: number, by: 1 | -1): Promise<void> {
    if (from > to) return;
    const range = Between(from, Math.min(to, MAX_SLIDES_PER_COURSE + 1));
    await this.slides.update(scope, { courseTemplateId: courseId, removedAt: IsNull(), newPosition: range }, { newPosition: () => `new_position + ${by}` });
  }
}
