/**
 * The injection token of the {@link chatflux!ChatClient} that `ChatfluxModule.forRoot()` / `forRootAsync()` provide.
 *
 * Inject it explicitly (`@Inject(CHATFLUX_CLIENT)`): tools that do not emit decorator metadata (tsx, esbuild,
 * SWC without its plugin) then resolve it as well.
 *
 * ## Example
 * ```ts
 * @Controller('answers')
 * export class AnswersController {
 *   constructor(@Inject(CHATFLUX_CLIENT) private readonly client: ChatClient) {}
 * }
 * ```
 */
export const CHATFLUX_CLIENT = 'chatflux:client';

/**
 * The injection token of the resolved {@link ChatfluxModuleConfig} (what `forRoot()` was given, or what the
 * `forRootAsync()` factory returned). The built-in controller reads its keys and writer options from it.
 */
export const CHATFLUX_MODULE_CONFIG = 'chatflux:module-config';

/**
 * The metadata key marking a handler whose response chatflux writes (the module's routes, and handlers decorated with
 * `@ChatJson()`, `@ChatNdjson()`, `@ChatSse()`); its value is a `ChatRoute`. Nest copies a handler's metadata onto the
 * route callback it registers, so that an error of Express's JSON parser, which Express raises before any route runs, can still be
 * answered in the route's error format (see `answerBodyParserErrors`).
 */
export const CHAT_ROUTE = 'chatflux:route';

/** The default of `shutdownGraceMs`: how long responses in flight may still run once `app.close()` began. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
