/**
 * The demo pages' security headers (the SSE page at `/`, the useChat protocol page at `/ui`): a CSP that allows only its own inline script and style (by hash) and its own
 * origin, no framing by other sites, no sniffing, no referrer. (gateway/test/browser.spec.ts runs the page under it.)
 */
import { createHash } from 'node:crypto';
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import { startGateway, type RunningGateway } from '../src/startGateway';
import { rawRequest } from '../../test/helpers/rawRequest';

let gateway: RunningGateway;
beforeAll(async () => {
  gateway = await startGateway({ ...loadGatewayConfig({}), port: 0 }, { log: () => undefined });
});
afterAll(async () => gateway.close(0));

describe('the demo page', () => {
  it.each(['/', '/ui'])('%s is served with CSP (frame-ancestors none), X-Frame-Options, nosniff and no referrer', async (path) => {
    const res = await rawRequest(`${gateway.url}${path}`);
    expect(res.status).toBe(200);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const script = /<script>([\s\S]*?)<\/script>/.exec(res.body)?.[1] ?? '';
    expect(script.length).toBeGreaterThan(100);
    expect(csp).toContain(`'sha256-${createHash('sha256').update(script).digest('base64')}'`);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it('links the useChat protocol page (/ui), which links back', async () => {
    expect((await rawRequest(`${gateway.url}/`)).body).toContain('href="/ui"');
    expect((await rawRequest(`${gateway.url}/ui`)).body).toContain('href="/"');
  });
});
