import { Global, Module } from '@nestjs/common';
import { IdentityExportsHandlers } from './identity-exports.handlers.js';
import { SIGN_IN_RETENTION_DAYS, SignInPrune, signInRetentionDays } from './sign-in-prune.js';
import { SignInRecorder } from './sign-in-recorder.js';

/** Sign-ins recorded from token use, and identity's rows for downloads and admin reports (docs/jobs.md). */
@Global()
@Module({
  controllers: [IdentityExportsHandlers],
  providers: [SignInRecorder, SignInPrune, { provide: SIGN_IN_RETENTION_DAYS, useFactory: () => signInRetentionDays() }],
  exports: [SignInRecorder],
})
export class SignInsModule {}
