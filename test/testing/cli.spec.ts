import { main } from '../../src/testing/cli';

describe('emulator CLI', () => {
  let errors: jest.SpyInstance;
  let logs: jest.SpyInstance;
  beforeEach(() => {
    errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    logs = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  });
  afterEach(() => {
    errors.mockRestore();
    logs.mockRestore();
  });

  it('prints the usage with --help', async () => {
    expect(await main(['--help'])).toBe(0);
    expect(logs).toHaveBeenCalledWith(expect.stringMatching(/^usage: chatflux-emulator/));
  });

  it('refuses an unknown dialect, a stray argument and a missing value, with exit code 2', async () => {
    expect(await main(['--dialect', 'gemini'])).toBe(2);
    expect(errors).toHaveBeenLastCalledWith(expect.stringContaining('--dialect must be deepseek, moonshot or openai'));
    expect(await main(['8787'])).toBe(2);
    expect(await main(['--port'])).toBe(2);
    expect(errors).toHaveBeenLastCalledWith(expect.stringContaining('--port needs a value'));
  });
});
