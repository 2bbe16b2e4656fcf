import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DebianTool } from './DebianTool';
import { findTool } from './findTool';
import { missingToolVariable } from './missingToolVariable';
import { requireTool } from './requireTool';

describe('finding a tool the tests need (findTool, requireTool)', () => {
  let dir: string;
  const tool = (paths: string[] = []): DebianTool => ({
    name: 'Frobnicator',
    envVar: 'FROB_PATH',
    commands: ['frob', 'frobnicate'],
    paths,
    debianPackage: 'frob-utils',
    neededBy: 'test/frob.spec.ts',
  });
  const executable = (file: string): string => {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, '#!/bin/sh\n');
    chmodSync(file, 0o755);
    return file;
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'chatflux-findtool-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('takes the environment variable first, then PATH in command order, then the usual locations', () => {
    const named = executable(join(dir, 'named', 'frob'));
    const onPath = executable(join(dir, 'bin', 'frobnicate'));
    const usual = executable(join(dir, 'opt', 'frob'));
    expect(findTool(tool([usual]), { FROB_PATH: named, PATH: join(dir, 'bin') })).toBe(named);
    expect(findTool(tool([usual]), { FROB_PATH: join(dir, 'nope'), PATH: `${join(dir, 'empty')}:${join(dir, 'bin')}` })).toBe(onPath);
    expect(findTool(tool([join(dir, 'missing'), usual]), { PATH: join(dir, 'empty') })).toBe(usual);
  });

  it('skips files that are not executable, and directories', () => {
    writeFileSync(join(dir, 'frob'), 'not executable');
    mkdirSync(join(dir, 'frobnicate'));
    expect(findTool(tool([join(dir, 'frob')]), { PATH: dir })).toBeUndefined();
  });

  it('fails a test that needs a missing tool with one line saying what to install', () => {
    const missing = tool([join(dir, 'missing')]);
    const saved = { path: process.env['PATH'], reason: process.env[missingToolVariable(missing)] };
    process.env['PATH'] = join(dir, 'empty');
    try {
      expect(() => requireTool(missing)).toThrow(
        'test/frob.spec.ts needs Frobnicator: install it (Debian/Ubuntu: apt-get install frob-utils) or set FROB_PATH to its executable.',
      );
      process.env[missingToolVariable(missing)] = 'the reason the global setup found';
      const error = (() => {
        try {
          return requireTool(missing);
        } catch (thrown) {
          return thrown as Error;
        }
      })() as Error;
      expect([error.message, error.stack]).toEqual(['the reason the global setup found', 'the reason the global setup found']);
    } finally {
      process.env['PATH'] = saved.path;
      if (saved.reason === undefined) delete process.env[missingToolVariable(missing)];
    }
  });
});
