import { Injectable } from '@nestjs/common';
import { IsNull, Not } from 'typeorm';
import { InjectTenantRepository, type TenantRepository, type TenantScope } from '@lms/platform';
import { Slide } from './slide.entity.js';

/** The slides' half of publishing a course (runs inside the course's publish transaction, under its lock). */
@Injectable()
export class SlidePublisher {
  constructor(@InjectTenantRepository(Slide) private readonly slides: TenantRepository<Slide>) {}

  /** Drafts deleted since the last publish go; every live draft is copied to its published side. Answers the publish time. */
  async publish(scope: TenantScope, courseTemplateId: number): Promise<Date> {
    const publishedAt = new Date();
    await this.slides.delete(scope, { courseTemplateId, removedAt: Not(IsNull()) });
    // Setting published_at also copies the minutes and attachments to their published side (a trigger, so that
    // a catalog older than it, publishing while a rollout runs, copies them too: migration 1768000000000).
    await this.slides.update(scope, { courseTemplateId }, { publishedAttributes: () => 'draft_attributes', position: () => 'new_position', publishedAt });
    return publishedAt;
  }
}
