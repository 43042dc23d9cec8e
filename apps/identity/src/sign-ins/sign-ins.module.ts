import { Global, Module } from '@nestjs/common';
import { IdentityExportsHandlers } from './identity-exports.handlers.js';
import { SignInRecorder } from './sign-in-recorder.js';

/** Sign-ins recorded from token use, and identity's rows for downloads and admin reports (docs/jobs.md). */
@Global()
@Module({ controllers: [IdentityExportsHandlers], providers: [SignInRecorder], exports: [SignInRecorder] })
export class SignInsModule {}
