/**
 * `@mcp-resilience/middleware/redis`: endpoint health shared across a fleet of replicas on Redis or Valkey
 * (node-redis, an optional peer dependency). The only code that imports `redis`.
 */
export {
  createRedisHealthStore,
  type RedisClient,
  type RedisHealthStoreOptions,
  redisHealthStoreDefaults,
} from './createRedisHealthStore.js';
