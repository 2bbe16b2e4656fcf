/**
 * The serving options in one import: the schema (`ServingOptionsSchema`), its defaults (`SERVING_DEFAULTS`), its input
 * type (`ServingSettingsConfig`), and the docs machinery the option tables and the gateway's `--help` are rendered with
 * (`option`, `OPTION_DOCS`, `describeOptions`, `fieldAt`, `unwrap`, `showValue`). Re-exports only.
 */
export { ServingOptionsSchema } from './ServingOptionsSchema.js';
export { SERVING_DEFAULTS } from './SERVING_DEFAULTS.js';
export type { ServingSettingsConfig } from './ServingSettingsConfig.js';
export { describeOptions, fieldAt, option, OPTION_DOCS, showValue, unwrap, type OptionDoc, type OptionRow } from '../core/optionDocs.js';
