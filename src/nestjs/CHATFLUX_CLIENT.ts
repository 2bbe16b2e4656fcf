/**
 * The injection token of the {@link ChatClient} that `ChatfluxModule.forRoot()` / `forRootAsync()` provide.
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
