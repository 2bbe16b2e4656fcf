/** Options of `createDemandGate`. */
export interface DemandGateConfig {
  /**
   * The write stall deadline, in ms: when the gate stays closed this long (the sink — a client's socket — has not
   * drained), the gate's `onStall` listeners are called once with a `RequestError` `client_stalled`, and the writers
   * end the response (the upstream is aborted, the client's connection destroyed). Absent or `0`: no deadline.
   */
  stallTimeoutMs?: number;
}
