/** Redis adapters: the address lock and the rate limiter, plus the client factory they are meant to share. */
export { createRedisClient, type RedisClientOptions } from './redis-client.js';
export { RedisAddressLock, type RedisAddressLockOptions } from './redis-address-lock.js';
export { RedisRateLimiter, type RedisRateLimiterOptions } from './redis-rate-limiter.js';
