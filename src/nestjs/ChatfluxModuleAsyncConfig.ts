import type { InjectionToken, ModuleMetadata, OptionalFactoryDependency } from '@nestjs/common';
import type { ChatfluxModuleConfig, ChatfluxRoutesConfig } from './ChatfluxModuleConfig.js';

/**
 * What `ChatfluxModule.forRootAsync()` takes: a factory for the config, resolved by Nest's DI (e.g. from
 * `ConfigService`). `routes` and `global` stay static, because Nest must know its controllers and scopes before any
 * provider is built.
 *
 * ## Example
 * ```ts
 * ChatfluxModule.forRootAsync({
 *   imports: [ConfigModule],
 *   inject: [ConfigService],
 *   useFactory: (env: ConfigService) => ({ client: { provider: 'moonshot', apiKey: env.get('MOONSHOT_API_KEY') } }),
 *   routes: true,
 * });
 * ```
 */
export interface ChatfluxModuleAsyncConfig {
  /** Modules exporting the providers `inject` names. */
  imports?: ModuleMetadata['imports'];
  /** Tokens whose values are passed to `useFactory`, in order. */
  inject?: Array<InjectionToken | OptionalFactoryDependency>;
  /** Builds the config; may be async. */
  useFactory: (...args: never[]) => Omit<ChatfluxModuleConfig, 'routes' | 'global'> | Promise<Omit<ChatfluxModuleConfig, 'routes' | 'global'>>;
  /** Register the controller serving the three endpoints (default: none). */
  routes?: ChatfluxRoutesConfig;
  /** Make `CHATFLUX_CLIENT` injectable everywhere (default false). */
  global?: boolean;
}
