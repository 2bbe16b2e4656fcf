import { rawRequest } from './rawRequest';

/**
 * `POST /chat/token` with the Bearer `key`: asserts the answer is 200, JSON and `Cache-Control: no-store`, and resolves
 * with its token.
 */
export async function fetchSseToken(url: string, key: string): Promise<{ token: string; expiresAt: string }> {
  const res = await rawRequest(`${url}/chat/token`, { method: 'POST', headers: { Authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['cache-control']).toBe('no-store');
  return JSON.parse(res.body) as { token: string; expiresAt: string };
}
