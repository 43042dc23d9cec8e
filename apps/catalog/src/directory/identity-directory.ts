/** The directory moved to the platform library once scheduling needed it too; catalog's imports keep this path. */
export { IdentityDirectory } from '@lms/platform';
