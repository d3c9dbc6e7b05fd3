import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { ciErrorsOf, diagnosticsOf } from '../../src/core/compaction/facts/diagnostics';

// Where each tool puts a finding's message relative to its location (compiler output as printed).
const texts = (t: string) => [...diagnosticsOf(t)].map((d) => `${d.type}: ${d.text}`);

test('a message on its location line: gcc warnings, golangci-lint codes, TypeScript with the line under it', () => {
  assert.deepEqual(texts([
    "/home/k/vsla/include/vsla/vsla_unified.h:17:29: warning: redefinition of typedef 'vsla_context_t' [-Wpedantic]",
    '   17 | typedef struct vsla_context vsla_context_t;',
    '      |                             ^~~~~~~~~~~~~~',
    'src/cmd/export_manifest_test.go:224:3: QF1003: could use tagged switch on fileType (staticcheck)',
    "src/ui/Wizard.tsx:724:46 - error TS2322: Type '{ marginTop: number; }' is not assignable to type 'Props'.",
    "  Property 'marginTop' does not exist on type 'Props'.",
  ].join('\n')), [
    "warning: /home/k/vsla/include/vsla/vsla_unified.h:17:29: warning: redefinition of typedef 'vsla_context_t' [-Wpedantic]",
    'lint: src/cmd/export_manifest_test.go:224:3: QF1003: could use tagged switch on fileType (staticcheck)',
    "TypeScript: src/ui/Wizard.tsx:724:46 - error TS2322: Type '{ marginTop: number; }' is not assignable to type 'Props'.",
    "TypeScript: Property 'marginTop' does not exist on type 'Props'.",
  ]);
});

test('a message before an arrow or an indented location (ruff, rustc, credo), after a location that names its check (dialyzer)', () => {
  assert.deepEqual(texts([
    'PLW0603 Using the global statement to update `_current_selection` is discouraged',
    '   --> src/promptgrimoire/pages/text_selection.py:109:16',
    '    |',
    '109 |         global _current_selection',
    '┃ [F] → Function is too complex (cyclomatic complexity is 13, max is 9).',
    '┃       lib/spotter_web/controllers/hooks_controller.ex:144:7 #(SpotterWeb.HooksController.tool_call)',
    'lib/spotter_web/controllers/otel_trace_helpers.ex:57:13:pattern_match',
    'The pattern can never match the type.',
  ].join('\n')), [
    'diagnostic: PLW0603 Using the global statement to update `_current_selection` is discouraged',
    'diagnostic: [F] → Function is too complex (cyclomatic complexity is 13, max is 9).',
    'lint: The pattern can never match the type.',
  ]);
});

test("dialyzer's message over several lines, blank ones among them, is read to the end of its sentence", () => {
  // marot/spotter (wild dev split): `mix dialyzer` as printed.
  assert.deepEqual(texts([
    'lib/spotter_web/controllers/otel_trace_helpers.ex:94:7:pattern_match_cov',
    'The pattern',
    ':variable_',
    '',
    'can never match, because previous clauses completely cover the type',
    'binary().',
    '',
    '________________________________________________________________________________',
    'done (warnings were emitted)',
  ].join('\n')), ['lint: The pattern :variable_ can never match, because previous clauses completely cover the type binary().']);
});

test("a location alone, unindented (Node's crash header), and code around it are not findings", () => {
  assert.deepEqual(texts(['$ node x.js', '/home/u/x.js:3', '  foo();', '  ^', '', 'ReferenceError: foo is not defined'].join('\n')), []);
  assert.deepEqual(texts(['src/a.py:12:    return x', 'src/a.py:13:def f():'].join('\n')), []);
});

test("GitHub Actions' own error marks: the line before \"Process completed with exit code 1.\" says why", () => {
  const log = [
    'Build\tBuild\t\uFEFF2026-02-02T03:34:31.8865734Z go build -o ../bin/claude-history .',
    'Build\tBuild\t2026-02-02T03:34:31.9309075Z go: go.mod requires go >= 1.24.0 (running go 1.23.12; GOTOOLCHAIN=local)',
    'Build\tBuild\t2026-02-02T03:34:31.9323312Z ##[error]Process completed with exit code 1.',
    'Lint\tRun golangci-lint\t2026-02-02T04:33:36.9657200Z ##[error]/src/cmd/x_test.go:224:3: QF1003: could use tagged switch on fileType (staticcheck)',
  ].join('\n').replace(/\t/g, ' ');
  assert.deepEqual(ciErrorsOf(log).map((d) => d.text), [
    'go: go.mod requires go >= 1.24.0 (running go 1.23.12; GOTOOLCHAIN=local)',
    '/src/cmd/x_test.go:224:3: QF1003: could use tagged switch on fileType (staticcheck)',
  ]);
  assert.deepEqual(ciErrorsOf('all good\n2026-02-02T03:34:31Z done'), []);
});
