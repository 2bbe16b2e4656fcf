import type { AnswerPlan, PlannedChoice } from './planAnswer.js';
import type { EmulatorDialect } from './EmulatorDialect.js';
import { dialectUsage } from './dialectUsage.js';
import type { ProviderQuirks } from './ProviderQuirks.js';

/** Options of {@link dialectFrames}. */
export interface DialectFramesConfig {
  /** The request's `stream_options.include_usage`. */
  includeUsage: boolean;
  /** Moonshot: omit `index` on tool-call fragments after the first one of a call. */
  noToolIndex?: boolean;
  /** Every call's fragments carry `index: 0`: parallel calls differ only by their ids. */
  reuseToolIndex?: boolean;
  /** Shapes of other hosts layered on the dialect (Azure's filter chunk, `delta.reasoning`, Mistral's parts, …). */
  quirks?: ProviderQuirks;
}

/** The sentence a refusing model writes (`quirks.refusal`), in the pieces it streams. */
export const REFUSAL_PIECES: readonly string[] = [
  "I'm",
  ' sorry',
  ',',
  ' but',
  ' I',
  " can't",
  ' help',
  ' with',
  ' that',
  '.',
];

const AZURE_FILTER = {
  hate: { filtered: false, severity: 'safe' },
  self_harm: { filtered: false, severity: 'safe' },
  sexual: { filtered: false, severity: 'safe' },
  violence: { filtered: false, severity: 'safe' },
};

interface Step {
  delta: Record<string, unknown>;
  finish?: string;
  usage?: Record<string, unknown>;
  completionTokens: number;
}

function* steps(
  plan: AnswerPlan,
  choice: PlannedChoice,
  dialect: EmulatorDialect,
  config: DialectFramesConfig,
): Generator<Step> {
  const deepseek = dialect === 'deepseek';
  const quirks = config.quirks ?? {};
  const field = quirks.reasoningField ?? 'reasoning_content';
  let reasoningTokens = 0;
  let tokens = 0;
  const step = (delta: Record<string, unknown>): Step => ({ delta, completionTokens: tokens });
  if (quirks.refusal) {
    yield step({ role: 'assistant', content: null, refusal: '' });
    for (const piece of REFUSAL_PIECES) {
      tokens++;
      yield step({ refusal: piece });
    }
    const usage = dialectUsage(dialect, plan.promptTokens, tokens, undefined);
    yield { delta: {}, finish: 'stop', usage, completionTokens: tokens };
    return;
  }
  if (quirks.contentParts) {
    // Mistral: no role-only opening delta; the first piece carries the role.
    let first = true;
    const open = (delta: Record<string, unknown>): Record<string, unknown> =>
      first ? ((first = false), { role: 'assistant', ...delta }) : delta;
    for (const piece of choice.reasoning()) {
      reasoningTokens++;
      tokens++;
      yield step(open({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: piece }] }] }));
    }
    for (const piece of choice.content()) {
      tokens++;
      yield step(open({ content: [{ type: 'text', text: piece }] }));
    }
    if (first) yield step({ role: 'assistant', content: '' });
  } else {
    yield step(
      plan.reasoner
        ? deepseek
          ? { role: 'assistant', content: null, [field]: '' }
          : { role: 'assistant', content: '', [field]: '' }
        : dialect === 'openai'
          ? { role: 'assistant', content: '', refusal: null }
          : { role: 'assistant', content: '' },
    );
    for (const piece of choice.reasoning()) {
      reasoningTokens++;
      tokens++;
      yield step(deepseek ? { content: null, [field]: piece } : { [field]: piece });
    }
    for (const piece of choice.content()) {
      tokens++;
      yield step(deepseek && plan.reasoner ? { content: piece, [field]: null } : { content: piece });
    }
  }
  for (const [ordinal, call] of choice.toolCalls.entries()) {
    const k = config.reuseToolIndex === true ? 0 : ordinal;
    yield step({
      tool_calls: [{ index: k, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
    });
    for (const piece of call.pieces) {
      tokens++;
      const index = dialect === 'moonshot' && config.noToolIndex ? {} : { index: k };
      yield step({ tool_calls: [{ ...index, function: { arguments: piece } }] });
    }
  }
  const final = deepseek ? (plan.reasoner ? { content: '', [field]: null } : { content: '' }) : {};
  const usage = dialectUsage(dialect, plan.promptTokens, tokens, plan.reasoner ? reasoningTokens : undefined);
  yield { delta: final, finish: choice.finishReason, usage, completionTokens: tokens };
}

/**
 * The `data:` payloads (JSON text, without `data: `) of a streamed answer in a provider's dialect, lazily.
 *
 * 1. First chunk `delta: {role: "assistant", content: ""}` (thinking models add `reasoning_content: ""`, DeepSeek
 *    with `content: null`); reasoning first, then content or tool calls; a finishing chunk per choice.
 * 2. DeepSeek: explicit `null`s, `logprobs: null`, `usage` on the finishing chunk, `"usage": null` on the others
 *    when `include_usage`. Moonshot: omitted fields, `system_fingerprint` last, `delta: {}` and `usage` inside the
 *    choice, then a `choices: []` usage chunk when `include_usage`. OpenAI: usage only in that last chunk.
 * 3. n > 1 (Moonshot, OpenAI): choices interleaved one chunk at a time, each with its own finishing chunk.
 * 4. Nothing is built ahead: a million-token answer costs the memory of one chunk.
 * 5. `config.quirks` layers other hosts' shapes on the dialect (see {@link ProviderQuirks}): Azure's opening
 *    `prompt_filter_results` chunk, reasoning in `delta.reasoning`, Mistral's content parts, usage only in
 *    `x_groq.usage`, a refusal.
 *
 * ## Example
 * ```ts
 * for (const json of dialectFrames(plan, 'moonshot', { includeUsage: true })) res.write(`data: ${json}\n\n`);
 * ```
 *
 * @param plan - The answer, from `planAnswer`.
 * @param dialect - The provider imitated.
 * @param config - The request's streaming options.
 * @returns An iterable of JSON texts (the `[DONE]` sentinel excluded).
 */
export function* dialectFrames(
  plan: AnswerPlan,
  dialect: EmulatorDialect,
  config: DialectFramesConfig,
): Generator<string> {
  const { id, created, model, systemFingerprint } = plan;
  const quirks = config.quirks ?? {};
  const groq = quirks.usageIn === 'x_groq' ? { id: `req_${id.replace(/[^0-9a-z]/gi, '').slice(-26)}` } : undefined;
  const chunk = (
    choices: Record<string, unknown>[],
    usage?: Record<string, unknown> | null,
    groqUsage?: Record<string, unknown>,
  ): string => {
    const head = { id, object: 'chat.completion.chunk', created, model };
    if (quirks.azureFilter)
      for (const choice of choices) choice.content_filter_results = choice.finish_reason == null ? AZURE_FILTER : {};
    const xGroq = groqUsage === undefined ? {} : { x_groq: { ...groq, usage: groqUsage } };
    if (dialect === 'moonshot') {
      return JSON.stringify({
        ...head,
        choices,
        system_fingerprint: systemFingerprint,
        ...(usage ? { usage } : {}),
        ...xGroq,
      });
    }
    const tier = dialect === 'openai' ? { service_tier: 'default' } : {};
    const withUsage = usage !== undefined ? { usage } : config.includeUsage ? { usage: null } : {};
    return JSON.stringify({ ...head, ...tier, system_fingerprint: systemFingerprint, choices, ...withUsage, ...xGroq });
  };
  if (quirks.azureFilter) {
    yield JSON.stringify({
      choices: [],
      created: 0,
      id: '',
      model: '',
      object: '',
      prompt_filter_results: [
        {
          prompt_index: 0,
          content_filter_results: { ...AZURE_FILTER, jailbreak: { filtered: false, detected: false } },
        },
      ],
    });
  }
  const iterators = plan.choices.map((choice) => ({ index: choice.index, it: steps(plan, choice, dialect, config) }));
  let completionTokens = 0;
  let active = iterators;
  while (active.length > 0) {
    const next: typeof active = [];
    for (const entry of active) {
      const result = entry.it.next();
      if (result.done) continue;
      next.push(entry);
      const { delta, finish, usage } = result.value;
      if (finish === undefined) {
        yield chunk([
          dialect === 'moonshot'
            ? { index: entry.index, delta, finish_reason: null }
            : { index: entry.index, delta, logprobs: null, finish_reason: null },
        ]);
        continue;
      }
      completionTokens += result.value.completionTokens;
      if (groq !== undefined) {
        const finishing =
          dialect === 'moonshot'
            ? { index: entry.index, delta, finish_reason: finish }
            : { index: entry.index, delta, logprobs: null, finish_reason: finish };
        yield chunk([finishing], undefined, usage);
      } else if (dialect === 'moonshot') yield chunk([{ index: entry.index, delta, finish_reason: finish, usage }]);
      else if (dialect === 'deepseek')
        yield chunk([{ index: entry.index, delta, logprobs: null, finish_reason: finish }], usage);
      else yield chunk([{ index: entry.index, delta, logprobs: null, finish_reason: finish }]);
    }
    active = next;
  }
  if (config.includeUsage && dialect !== 'deepseek' && groq === undefined) {
    const reasoning = plan.reasoner ? 0 : undefined;
    yield chunk([], dialectUsage(dialect, plan.promptTokens, completionTokens, reasoning));
  }
}
