import { Module } from '@nestjs/common';

/** Job executors are added here as job kinds land; the worker scales on its own (k8s HPA). */
@Module({})
export class JobsWorkerModule {}
