import type { OrderedSlideView } from '@lms/contracts';
import type { Slide } from './slide.entity.js';

export const toSlideView = (slide: Slide): OrderedSlideView => ({
  id: slide.id,
  position: slide.position,
  new_position: slide.newPosition,
  published_attributes: slide.publishedAttributes,
  draft_attributes: slide.draftAttributes,
  published_at: slide.publishedAt?.toISOString() ?? null,
  estimated_time: slide.estimatedTime,
  attachments: slide.attachments,
});
