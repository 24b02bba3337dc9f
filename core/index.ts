// Public entry of the core library: domain model, error catalogue and ports. Rules and use cases are added by
// their own modules (core/domain, core/application).
export * from './domain/model/index.js';
export * from './domain/errors.js';
export type * from './ports/index.js';
