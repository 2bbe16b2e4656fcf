/** One histogram of the GenAI semantic conventions: its name, unit, description and advised bucket boundaries. */
export interface GenAiHistogram {
  /** The instrument's name (`gen_ai.client.operation.duration`). */
  readonly name: string;
  /** Its UCUM unit (`s`, `{token}`). */
  readonly unit: string;
  /** What it measures. */
  readonly description: string;
  /** The explicit bucket boundaries the conventions advise. */
  readonly boundaries: readonly number[];
}

/**
 * The four client histograms chatflux records, as the OpenTelemetry semantic conventions for generative AI name them,
 * with their units and advised bucket boundaries (passed to the meter as `advice.explicitBucketBoundaries`).
 * Prometheus shows them as `gen_ai_client_operation_duration`, `gen_ai_client_token_usage`,
 * `gen_ai_client_operation_time_to_first_chunk` and `gen_ai_client_operation_time_per_output_chunk` (each with `_bucket`,
 * `_sum`, `_count`).
 */
export const GEN_AI_METRICS: {
  /** `gen_ai.client.operation.duration` (s): the whole completion, retries included; `error.type` when it failed. */
  readonly duration: GenAiHistogram;
  /** `gen_ai.client.token.usage` (`{token}`): input and output tokens (`gen_ai.token.type`), from the final usage. */
  readonly tokenUsage: GenAiHistogram;
  /** `gen_ai.client.operation.time_to_first_chunk` (s): from the request to the first chunk. */
  readonly timeToFirstChunk: GenAiHistogram;
  /** `gen_ai.client.operation.time_per_output_chunk` (s): between two chunks, for each network read after the first (the chunks of one read, handed over at once, are one sample). */
  readonly timePerOutputChunk: GenAiHistogram;
} = Object.freeze({
  duration: Object.freeze({
    name: 'gen_ai.client.operation.duration',
    unit: 's',
    description: 'GenAI operation duration.',
    boundaries: Object.freeze([0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]),
  }),
  tokenUsage: Object.freeze({
    name: 'gen_ai.client.token.usage',
    unit: '{token}',
    description: 'Number of input and output tokens used.',
    boundaries: Object.freeze([1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864]),
  }),
  timeToFirstChunk: Object.freeze({
    name: 'gen_ai.client.operation.time_to_first_chunk',
    unit: 's',
    description: 'Time from issuing the request to receiving the first chunk of the response stream.',
    boundaries: Object.freeze([0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]),
  }),
  timePerOutputChunk: Object.freeze({
    name: 'gen_ai.client.operation.time_per_output_chunk',
    unit: 's',
    description: 'Time between two chunks of the response stream, for every chunk after the first.',
    boundaries: Object.freeze([0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5]),
  }),
});
