import type { DebianTool } from './DebianTool';

/**
 * The Redis server, for the stream log's tests (`createRedisStreamLog`: test/redis/*.spec.ts) and the resumable
 * streams across gateway processes; started per suite by test/helpers/startRedis.ts. Debian's 7.0 is the target.
 */
export const REDIS: DebianTool = {
  name: 'Redis (redis-server)',
  envVar: 'REDIS_SERVER_PATH',
  commands: ['redis-server'],
  paths: ['/usr/bin/redis-server', '/usr/local/bin/redis-server', '/opt/homebrew/bin/redis-server', '/usr/local/opt/redis/bin/redis-server'],
  debianPackage: 'redis-server',
  neededBy: 'the stream log tests (test/redis/) and the resumable-stream tests',
};
