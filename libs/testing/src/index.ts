export * from './infra.js';
export * from './identity-factory.js';
export * from './http-client.js';
export * from './nats-cleanup.js';
export * from './ports.js';
export * from './json-schema-sample.js';
export * from './json-schema-arbitrary.js';
export * from './route-fixtures.js';
