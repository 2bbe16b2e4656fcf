import { request } from 'node:http';
import type { RawResponse } from './rawRequest';

/** Options of {@link slowPost}. */
export interface SlowPostConfig {
  /** The wait before each piece after the first, in ms. */
  gapMs: number;
  /** The wait before the first piece, in ms (default `gapMs`; the headers go out at once). */
  firstGapMs?: number;
  /** `false`: the body never ends (a client that stalls mid-body). Default `true`. */
  end?: boolean;
}

/**
 * POSTs `pieces` as a chunked JSON body: the headers at once, then the pieces `config.gapMs` apart, then the end.
 * Resolves with the whole response (status, headers, body) once it closes.
 */
export const slowPost = (url: string, pieces: readonly string[], config: SlowPostConfig): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const headers = { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' };
    const req = request(url, { method: 'POST', headers }, (res) => {
      const out: RawResponse = { status: res.statusCode ?? 0, headers: res.headers, body: '', pieces: [] };
      res.setEncoding('utf8');
      res.on('data', (text: string) => (out.body += text));
      res.on('close', () => resolve(out));
    });
    req.on('error', reject);
    req.flushHeaders();
    let sent = 0;
    const next = (): void => {
      if (req.destroyed) return;
      if (sent === pieces.length) return void (config.end === false ? undefined : req.end());
      req.write(pieces[sent++]);
      setTimeout(next, config.gapMs);
    };
    setTimeout(next, config.firstGapMs ?? config.gapMs);
  });
