// Lints source texts with the project's own ESLint config (eslint.config.mjs) through the ESLint Node API:
// `new ESLint().lintText(code, { filePath })`. A process of its own, because jest's module VM cannot load the ES-module
// config. Input: argv[2], JSON `[{ code, filePath }]`. Output: JSON `[[{ ruleId, message }]]`, one list per text.
import { ESLint } from 'eslint';

const texts = JSON.parse(process.argv[2] ?? '[]');
const eslint = new ESLint({ cwd: process.cwd() });
const results = [];
for (const { code, filePath } of texts) {
  const [result] = await eslint.lintText(code, { filePath, warnIgnored: true });
  results.push((result?.messages ?? []).map(({ ruleId, message }) => ({ ruleId, message })));
}
process.stdout.write(JSON.stringify(results));
