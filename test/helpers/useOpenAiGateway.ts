import type { EmulatorDialect } from '../../src/testing/EmulatorDialect';
import { startOpenAiGateway, type OpenAiGateway } from './openAiGateway';

/**
 * Registers hooks in the calling scope: `beforeAll` starts an emulator of `dialect` and the chat router in front of it
 * (`startOpenAiGateway`), `afterEach` resets the emulator's scenario, `afterAll` closes both. The returned gateway is
 * filled in `beforeAll`: read it inside tests and later hooks.
 */
export function useOpenAiGateway(dialect: EmulatorDialect, model: string): OpenAiGateway {
  const gateway = {} as OpenAiGateway;
  beforeAll(async () => void Object.assign(gateway, await startOpenAiGateway(dialect, model)));
  afterEach(() => gateway.emulator.setScenario());
  afterAll(async () => gateway.close());
  return gateway;
}
