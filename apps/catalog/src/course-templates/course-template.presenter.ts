import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import type { CourseTemplateView, RequestContext } from '@lms/contracts';
import { InjectTenantRepository, type TenantRepository } from '@lms/platform';
import { IdentityDirectory } from '../directory/identity-directory.js';
import { EnrollmentCounts } from '../enrollments/enrollment-counts.js';
import { ProgramCourse } from '../programs/program-course.entity.js';
import { Slide } from '../slides/slide.entity.js';
import { toSlideView } from '../slides/slide.views.js';
import type { CourseTemplate } from './course-template.entity.js';
import { type CourseTemplateExtras, type CourseTemplateViewOptions, toCourseTemplateView } from './course-template.views.js';
import { ScormPackage } from '../scorm/scorm-package.entity.js';

interface SlideTotalsRow {
  course_template_id: number;
  estimated_time: string;
  attachments: string;
  slides: string;
}

/** Options of the single-record answers (show, create, update, publish, restore): counts, SCORM block, deleted_at. */
export const SINGLE_RECORD: CourseTemplateViewOptions = { counts: true, scorm: true, deletedAt: true };

/** Reads what the views need beside the rows (one query or request per kind, for a whole page) and renders them. */
@Injectable()
export class CourseTemplatePresenter {
  constructor(
    private readonly directory: IdentityDirectory,
    private readonly enrollments: EnrollmentCounts,
    @InjectTenantRepository(Slide) private readonly slides: TenantRepository<Slide>,
    @InjectTenantRepository(ProgramCourse) private readonly programs: TenantRepository<ProgramCourse>,
    @InjectTenantRepository(ScormPackage) private readonly scormPackages: TenantRepository<ScormPackage>,
  ) {}

  async present(ctx: RequestContext, courses: CourseTemplate[], options: CourseTemplateViewOptions, withContent = false): Promise<CourseTemplateView[]> {
    if (courses.length === 0) return [];
    const ids = courses.map((c) => c.id);
    const packageIds = options.scorm ? courses.flatMap((c) => (c.courseType === 'scorm' && c.scormPackageId ? [c.scormPackageId] : [])) : [];
    const [subAccounts, figures, slideTotals, programIds, slides, scormPackages] = await Promise.all([
      this.directory.subAccounts(ctx, courses.flatMap((c) => (c.subAccountId === null ? [] : [c.subAccountId]))),
      this.enrollments.of(ctx, 'CourseTemplate', ids),
      this.slideTotals(ctx, ids),
      options.programs ? this.programIds(ctx, ids) : Promise.resolve(new Map<number, number[]>()),
      withContent ? this.draftSlides(ctx, ids) : Promise.resolve(undefined),
      packageIds.length > 0 ? this.scormPackages.find(ctx, { where: { id: In(packageIds) } }) : Promise.resolve([]),
    ]);
    const extras: CourseTemplateExtras = { subAccounts, figures, slideTotals, programIds, slides, scormPackages: new Map(scormPackages.map((p) => [p.id, p])) };
    return courses.map((course) => toCourseTemplateView(course, extras, options));
  }

  private async slideTotals(ctx: RequestContext, ids: number[]): Promise<CourseTemplateExtras['slideTotals']> {
    const rows = await this.slides
      .query(ctx, 's')
      .select('s.course_template_id', 'course_template_id')
      .addSelect('coalesce(sum(s.estimated_time), 0)', 'estimated_time')
      .addSelect('coalesce(sum(jsonb_array_length(s.attachments)), 0)', 'attachments')
      .addSelect('count(*)', 'slides')
      .andWhere('s.course_template_id = ANY(:ids)', { ids })
      .andWhere('s.removed_at IS NULL')
      .groupBy('s.course_template_id')
      .getRawMany<SlideTotalsRow>();
    return new Map(rows.map((r) => [Number(r.course_template_id), { estimatedTime: Number(r.estimated_time), attachments: Number(r.attachments), slides: Number(r.slides) }]));
  }

  private async programIds(ctx: RequestContext, ids: number[]): Promise<Map<number, number[]>> {
    const rows = await this.programs.find(ctx, { where: { courseTemplateId: In(ids) }, order: { programId: 'ASC' } });
    const map = new Map<number, number[]>();
    for (const row of rows) map.set(row.courseTemplateId, [...(map.get(row.courseTemplateId) ?? []), row.programId]);
    return map;
  }

  private async draftSlides(ctx: RequestContext, ids: number[]): Promise<NonNullable<CourseTemplateExtras['slides']>> {
    const rows = await this.slides
      .query(ctx, 's')
      .andWhere('s.course_template_id = ANY(:ids)', { ids })
      .andWhere('s.removed_at IS NULL')
      .orderBy('s.new_position', 'ASC')
      .getMany();
    const map = new Map(ids.map((id) => [id, [] as ReturnType<typeof toSlideView>[]]));
    for (const slide of rows) map.get(slide.courseTemplateId)?.push(toSlideView(slide));
    return map;
  }
}
