import { redactSecrets } from '../core/redactSecrets.js';

/**
 * `redactSecrets` with a memory of one: the strings an upstream repeats on every chunk of an answer (`id`, `model`,
 * `system_fingerprint`) are redacted once, then each chunk costs one string comparison.
 *
 * @param secrets - Literal secrets to remove (the upstream API key), as `redactSecrets` takes them.
 * @returns The text with secrets replaced (the last result again when the text is the last one).
 */
export function createRepeatRedactor(secrets: readonly string[]): (text: string) => string {
  let last: string | undefined;
  let redacted = '';
  return (text) => {
    if (text !== last) {
      last = text;
      redacted = redactSecrets(text, secrets);
    }
    return redacted;
  };
}
