import type { DebianTool } from './DebianTool';

/** The Prometheus server, for the end-to-end test of the gateway's `/metrics` (gateway/test/prometheus.e2e.spec.ts). */
export const PROMETHEUS: DebianTool = {
  name: 'Prometheus',
  envVar: 'PROMETHEUS_PATH',
  commands: ['prometheus'],
  paths: ['/usr/bin/prometheus', '/usr/local/bin/prometheus', '/opt/homebrew/bin/prometheus', '/usr/local/opt/prometheus/bin/prometheus'],
  debianPackage: 'prometheus',
  neededBy: 'gateway/test/prometheus.e2e.spec.ts',
};
