/** The fields of a provider's error body, when the body is one. */
export interface ParsedErrorBody {
  message?: string;
  type?: string;
  code?: string;
}

const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;

/**
 * Reads `{"error":{"message","type","param","code"}}` (DeepSeek, OpenAI), `{"error":{"message","type"}}` (Moonshot),
 * `{"error":"text"}` and `{"message":…}` bodies. Anything else (an HTML page, plain text) gives `undefined`.
 */
export function parseErrorBody(text: string): ParsedErrorBody | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null) return undefined;
  const root = json as Record<string, unknown>;
  const inner = root.error;
  if (typeof inner === 'string') return { message: inner, type: str(root.type), code: str(root.code) };
  const error = (typeof inner === 'object' && inner !== null ? inner : root) as Record<string, unknown>;
  const parsed: ParsedErrorBody = {
    message: str(error.message) ?? str(error.msg) ?? str(error.detail),
    type: str(error.type),
    code: str(error.code),
  };
  return parsed.message === undefined && parsed.type === undefined && parsed.code === undefined ? undefined : parsed;
}
