import type { AnswerPlan } from './planAnswer.js';
import type { EmulatorDialect } from './EmulatorDialect.js';
import { dialectUsage } from './dialectUsage.js';
import { REFUSAL_PIECES } from './dialectFrames.js';
import type { ProviderQuirks } from './ProviderQuirks.js';

/**
 * The non-streaming `chat.completion` body of an answer, in a provider's dialect (key order included).
 *
 * Its message equals what accumulating the streamed chunks of the same plan gives (the same text, reasoning and
 * tool calls; `content: null` for an answer made only of tool calls, as the `openai` SDK's accumulator gives);
 * `usage` is the sum over the choices.
 *
 * ## Example
 * ```ts
 * res.end(dialectCompletion(planAnswer(request, { dialect: 'deepseek', seed: 0 }), 'deepseek'));
 * ```
 *
 * @param plan - The answer, from `planAnswer`.
 * @param dialect - The provider imitated.
 * @param quirks - Other hosts' shapes: a refusal, `reasoning` as the reasoning field, Mistral's content parts.
 * @returns The JSON text.
 */
export function dialectCompletion(plan: AnswerPlan, dialect: EmulatorDialect, quirks: ProviderQuirks = {}): string {
  let completionTokens = 0;
  let reasoningTokens = 0;
  const choices = plan.choices.map((choice) => {
    if (quirks.refusal) {
      completionTokens += REFUSAL_PIECES.length;
      const message = { role: 'assistant', content: null, refusal: REFUSAL_PIECES.join('') };
      return { index: choice.index, message, logprobs: null, finish_reason: 'stop' };
    }
    const reasoning = [...choice.reasoning()];
    const content = [...choice.content()];
    const toolPieces = choice.toolCalls.reduce((sum, call) => sum + call.pieces.length, 0);
    reasoningTokens += reasoning.length;
    completionTokens += reasoning.length + content.length + toolPieces;
    const text = content.length === 0 && choice.toolCalls.length > 0 ? null : content.join('');
    const parts = [
      ...(plan.reasoner ? [{ type: 'thinking', thinking: [{ type: 'text', text: reasoning.join('') }] }] : []),
      ...(text === null ? [] : [{ type: 'text', text }]),
    ];
    const message = {
      role: 'assistant',
      content: quirks.contentParts ? parts : text,
      ...(plan.reasoner && !quirks.contentParts
        ? { [quirks.reasoningField ?? 'reasoning_content']: reasoning.join('') }
        : {}),
      ...(dialect === 'openai' ? { refusal: null } : {}),
      ...(choice.toolCalls.length > 0
        ? {
            tool_calls: choice.toolCalls.map((call, index) => ({
              ...(dialect === 'moonshot' ? { index } : {}),
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: call.arguments },
            })),
          }
        : {}),
    };
    return dialect === 'moonshot'
      ? { index: choice.index, message, finish_reason: choice.finishReason }
      : { index: choice.index, message, logprobs: null, finish_reason: choice.finishReason };
  });
  const usage = dialectUsage(dialect, plan.promptTokens, completionTokens, plan.reasoner ? reasoningTokens : undefined);
  const head = { id: plan.id, object: 'chat.completion', created: plan.created, model: plan.model, choices, usage };
  if (dialect === 'moonshot') return JSON.stringify(head);
  if (dialect === 'openai')
    return JSON.stringify({ ...head, service_tier: 'default', system_fingerprint: plan.systemFingerprint });
  return JSON.stringify({ ...head, system_fingerprint: plan.systemFingerprint });
}
