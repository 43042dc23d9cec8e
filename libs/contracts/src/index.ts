import 'reflect-metadata';
export * from './context.js';
export * from './common/query.js';
export * from './common/validate.js';
export * from './routes/index.js';
export * from './events/envelope.js';
export * from './identity/auth.contract.js';
export * from './identity/api-tokens.contract.js';
export * from './identity/custom-fields.contract.js';
