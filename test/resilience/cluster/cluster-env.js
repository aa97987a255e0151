// The settings the cluster runs under for its tests: money and faults are under test, not request
// rates (rate limits and the abuse block off), and settlements land within about a second.
const TEST_ENV = {
  RATE_LIMITS_ENABLED: 'false',
  ABUSE_PROTECTION_ENABLED: 'false',
  BILLING_SETTLE_GRACE_MS: '1000',
  BILLING_SWEEP_INTERVAL_MS: '250',
  SHUTDOWN_GRACE_MS: '5000',
  LOG_LEVEL: 'info',
};

module.exports = { TEST_ENV };
