/**
 * The serving options in one import: the schema (`ServingOptionsSchema`), its defaults (`SERVING_DEFAULTS`), its input
 * type (`ServingSettingsConfig`), and the docs machinery the option tables and the gateway's `--help` are rendered with
 * (`option`, `describeOptions`). Re-exports only.
 */
export { ServingOptionsSchema } from './ServingOptionsSchema.js';
export { SERVING_DEFAULTS } from './SERVING_DEFAULTS.js';
export type { ServingSettingsConfig } from './ServingSettingsConfig.js';
export { describeOptions, option, type OptionDoc, type OptionRow } from '../core/optionDocs.js';
