import { Module } from '@nestjs/common';
import { LearnerFiguresConsumer } from './learner-figures.consumer.js';
import { LearnerFiguresService } from './learner-figures.service.js';

/** Learner figures (completed courses, next due date) projected from catalog's events. */
@Module({
  providers: [LearnerFiguresService, LearnerFiguresConsumer],
  exports: [LearnerFiguresService],
})
export class LearnerFiguresModule {}
