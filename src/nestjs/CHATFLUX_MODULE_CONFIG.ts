/**
 * The injection token of the resolved {@link ChatfluxModuleConfig} (what `forRoot()` was given, or what the
 * `forRootAsync()` factory returned). The built-in controller reads its keys and writer options from it.
 */
export const CHATFLUX_MODULE_CONFIG = 'chatflux:module-config';
