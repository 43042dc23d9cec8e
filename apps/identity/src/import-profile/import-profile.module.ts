import { Module } from '@nestjs/common';
import { LOGGER, tenantRepositoryProvider, type Logger } from '@lms/platform';
import { CustomField } from '../custom-fields/custom-field.entity.js';
import { ImportProfileCipher } from './import-profile.cipher.js';
import { importAllowsPrivateAddresses, importProfileKeyConfig } from './import-profile.config.js';
import { ImportProfile } from './import-profile.entity.js';
import { ImportProfileHandlers } from './import-profile.handlers.js';
import { IMPORT_URL_POLICY, ImportProfileService } from './import-profile.service.js';

@Module({
  controllers: [ImportProfileHandlers],
  providers: [
    ImportProfileService,
    tenantRepositoryProvider(ImportProfile),
    tenantRepositoryProvider(CustomField),
    { provide: IMPORT_URL_POLICY, useFactory: () => ({ allowPrivate: importAllowsPrivateAddresses() }) },
    {
      provide: ImportProfileCipher,
      inject: [LOGGER],
      useFactory: (logger: Logger) => {
        const { secret, isDevDefault } = importProfileKeyConfig();
        if (isDevDefault) logger.warn('IMPORT_PROFILE_KEY is not set: CSV passwords are encrypted with the public development key; set it in production');
        return new ImportProfileCipher(secret);
      },
    },
  ],
})
export class ImportProfileModule {}
