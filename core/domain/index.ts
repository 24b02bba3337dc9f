// Public entry of the pure domain: model types, the error catalogue, and the rules and state machines.
export * from './model/index.js';
export * from './errors.js';
export * from './amount.js';
export * from './time.js';
export * from './pagination.js';
export * from './assets.js';
export * from './wallet-rules.js';
export * from './cashier-token-rules.js';
export * from './collection-machine.js';
export * from './command-machine.js';
export * from './webhook-review.js';
export * from './delivery-schedule.js';
export * from './webhook-url.js';
export * from './signature.js';
export * from './sweep-plan.js';
export * from './sweep-cost.js';
export * from './numbers.js';
