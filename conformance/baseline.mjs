// Why this file exists: expected-failures.yml keeps one list per era, and every entry carries
// a reason. The suite's own --expected-failures file is a bare `server: [ids]` list with no era
// and no reasons. run.sh calls this script, with the pinned Node 22, to check our file and write
// the suite-format baseline for one era.
//
// Usage: node baseline.mjs <era> <expected-failures.yml> <enabled-scenarios.txt> <out.yml>
// It exits non-zero, with a message, for: an unknown era, an entry without id or reason,
// a duplicate entry, or an entry naming a scenario that this era does not run.
// An entry for a scenario that is not run could never be proven stale, so it is refused.

import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// Load `yaml` the way the suite itself resolves it, so hoisting in node_modules cannot break this.
const requireFromSuite = createRequire(
  createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')
);
const YAML = requireFromSuite('yaml');

const ERAS = ['2026-07-28', '2025-06-18', '2025-03-26'];
const [era, failuresPath, enabledPath, outPath] = process.argv.slice(2);

function die(msg) {
  console.error(`expected-failures: ${msg}`);
  process.exit(2);
}

if (!outPath) die('usage: baseline.mjs <era> <expected-failures.yml> <enabled.txt> <out.yml>');
if (!ERAS.includes(era)) die(`unknown era '${era}' (known: ${ERAS.join(', ')})`);

const doc = YAML.parse(readFileSync(failuresPath, 'utf8')) ?? {};
if (typeof doc !== 'object' || Array.isArray(doc)) die(`${failuresPath}: top level must map era -> list`);
for (const key of Object.keys(doc)) {
  if (!ERAS.includes(String(key))) die(`${failuresPath}: unknown era key '${key}'`);
}

const enabled = new Set(
  readFileSync(enabledPath, 'utf8').split('\n').map((s) => s.trim()).filter(Boolean)
);
const entries = doc[era] ?? [];
if (!Array.isArray(entries)) die(`${failuresPath}: '${era}' must be a list`);

const ids = [];
const wholeScenarios = new Set();
for (const [i, entry] of entries.entries()) {
  const where = `${failuresPath}: '${era}' entry ${i + 1}`;
  if (!entry || typeof entry !== 'object' || Array.isArray(entry)) die(`${where} must be a mapping with id and reason`);
  const extra = Object.keys(entry).filter((k) => k !== 'id' && k !== 'reason');
  if (extra.length) die(`${where} has unknown field(s): ${extra.join(', ')}`);
  if (typeof entry.id !== 'string' || !entry.id.trim()) die(`${where} has no id`);
  if (typeof entry.reason !== 'string' || !entry.reason.trim()) die(`${where} (${entry.id}) has no reason`);
  const id = entry.id.trim();
  const scenario = id.split(':')[0];
  if (!enabled.has(scenario)) die(`${where}: scenario '${scenario}' is not run in era ${era} (see scenarios.txt)`);
  if (ids.includes(id)) die(`${where}: duplicate id '${id}'`);
  if (!id.includes(':')) wholeScenarios.add(scenario);
  ids.push(id);
}
for (const id of ids) {
  if (id.includes(':') && wholeScenarios.has(id.split(':')[0])) {
    die(`${failuresPath}: '${era}' lists '${id}' and its whole scenario; keep one`);
  }
}

// Suite format (see the suite README, "Expected Failures"): ids are written as JSON strings, which YAML accepts.
const body = ids.length ? ids.map((id) => `  - ${JSON.stringify(id)}`).join('\n') + '\n' : '';
writeFileSync(outPath, ids.length ? `server:\n${body}` : 'server: []\n');
console.log(`expected-failures: ${ids.length} entr${ids.length === 1 ? 'y' : 'ies'} for ${era}`);
