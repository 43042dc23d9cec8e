import { Module } from '@nestjs/common';
import { AdminReportsHandlers } from './admin-reports.handlers.js';
import { CatalogExportsHandlers } from './catalog-exports.handlers.js';
import { QuizReportService } from './quiz-report.service.js';

/** Admin reports and the catalog's rows for downloads (docs/jobs.md). */
@Module({ controllers: [AdminReportsHandlers, CatalogExportsHandlers], providers: [QuizReportService] })
export class AdminReportsModule {}
