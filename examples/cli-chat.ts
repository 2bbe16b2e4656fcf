/**
 * Streams an answer to the terminal, with a progress line on stderr: time to first token and tokens per second.
 *
 * Run: `npx tsx examples/cli-chat.ts "your question"` with CHATFLUX_BASE_URL (and CHATFLUX_API_KEY), or
 * CHATFLUX_PROVIDER=deepseek and DEEPSEEK_API_KEY (moonshot and MOONSHOT_API_KEY likewise). Ctrl-C aborts the
 * upstream request at once.
 */
import { finalize, tap } from 'rxjs';
import { createChatClient, isChatfluxError, type LlmClientOutputChunk, type ProviderName } from 'chatflux';

const question = process.argv.slice(2).join(' ') || 'Hello! Who are you?';
const client = createChatClient({
  provider: (process.env.CHATFLUX_PROVIDER as ProviderName | undefined) ?? 'openai-compatible',
  baseUrl: process.env.CHATFLUX_BASE_URL,
  apiKey: process.env.CHATFLUX_API_KEY,
  model: process.env.CHATFLUX_MODEL ?? (process.env.CHATFLUX_PROVIDER ? undefined : 'deepseek-chat'),
});

const started = performance.now();
let firstTokenMs: number | undefined;
let pieces = 0;

/** `ttft 412 ms · 37 tokens · 52.1 tokens/s`: tokens are the provider's count when it sent usage, else pieces. */
function progress(last?: LlmClientOutputChunk): string {
  const now = performance.now();
  const tokens = last?.usage?.completion_tokens ?? pieces;
  const streamingSeconds = firstTokenMs === undefined ? 0 : (now - started - firstTokenMs) / 1000;
  const rate = streamingSeconds > 0 ? (tokens / streamingSeconds).toFixed(1) : '–';
  const ttft = firstTokenMs === undefined ? '…' : `${Math.round(firstTokenMs)} ms`;
  return `ttft ${ttft} · ${tokens} tokens · ${rate} tokens/s`;
}

const subscription = client
  .stream({ messages: [{ role: 'user', content: question }] })
  .pipe(
    tap((chunk) => {
      const { content, reasoning_content: reasoning = '' } = chunk.message;
      if (content !== '' || reasoning !== '') {
        firstTokenMs ??= performance.now() - started;
        pieces += 1;
      }
      if (reasoning !== '') process.stderr.write(reasoning); // DeepSeek-reasoner / Kimi thinking: to stderr
      if (content !== '') process.stdout.write(content);
      // The progress line lives on stderr, so `cli-chat > answer.txt` keeps only the answer.
      if (process.stderr.isTTY) process.stderr.write(`\x1b7\x1b[999;1H\x1b[2K${progress()}\x1b8`);
    }),
    finalize(() => void client.close()),
  )
  .subscribe({
    next: (chunk) => {
      if (!chunk.done) return;
      process.stdout.write('\n');
      process.stderr.write(`\n${progress(chunk)}${chunk.finish_reason ? ` · ${chunk.finish_reason}` : ''}\n`);
    },
    error: (error: unknown) => {
      // chatflux errors carry a stable `code` and a message without secrets.
      process.stderr.write(`\n${isChatfluxError(error) ? `error ${error.code}: ${error.message}` : String(error)}\n`);
      process.exitCode = 1;
    },
  });

process.once('SIGINT', () => {
  subscription.unsubscribe(); // aborts the upstream request
  process.stderr.write(`\ninterrupted · ${progress()}\n`);
  process.exitCode = 130;
});
