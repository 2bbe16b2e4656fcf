/**
 * The order suites start in. Jest orders by the durations of the last run on this machine, else by file size; a
 * fresh clone (CI) has no durations, so a suite of a minute could start last and run alone at the end. The suites
 * below are the long ones (seconds measured in a CI run on the 2-core machine): they start first, longest first, so
 * the short ones fill the other worker around them. A name that no longer exists is ignored; a new long suite is added
 * here.
 */
const Sequencer = require('@jest/test-sequencer').default;

/** Suite path (from the repository root) → seconds it took in CI. */
const LONG_SUITES = {
  'gateway/test/tokenLimits.redis.spec.ts': 185,
  'gateway/test/metricLabels.property.spec.ts': 64,
  'gateway/test/useChat.browser.spec.ts': 60,
  'test/package/package.spec.ts': 63,
  'test/frameworks/nestjs.versions.spec.ts': 55,
  'gateway/test/resumable.redis.spec.ts': 54,
  'test/nestjs/wireContract.spec.ts': 42,
  'gateway/test/browser.spec.ts': 31,
  'test/web/createChatHandlers.wire.spec.ts': 29,
  'test/express/chatRouter.wire.spec.ts': 29,
  'gateway/test/processes.spec.ts': 29,
  'test/leaks/streams.leak.spec.ts': 26,
  'test/redis/redisStreamLog.spec.ts': 25,
  'test/examples/readme.spec.ts': 25,
  'gateway/test/failover.spec.ts': 25,
  'gateway/test/startGateway.spec.ts': 24,
  'test/node/eventSourceFinished.spec.ts': 20,
  'gateway/test/resumable.leaks.spec.ts': 18,
  'gateway/test/workers.spec.ts': 17,
  'gateway/test/limits.redis.spec.ts': 17,
};

class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const root = (test) => test.context.config.rootDir;
    const seconds = (test) => LONG_SUITES[require('node:path').relative(root(test), test.path).split('\\').join('/')] ?? 0;
    // Array.prototype.sort is stable: suites outside the list keep jest's own order after the listed ones.
    return [...sorted].sort((a, b) => seconds(b) - seconds(a));
  }
}

module.exports = SlowFirstSequencer;
