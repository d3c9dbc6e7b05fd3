import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { OPENHANDS_TRUNCATION_MARKER, truncatedEventText, truncateMiddle } from '../../src/core/compaction/text';

// What a summarizer is sent of one event: "TOOL RESULT of bash\n<output>", middle-cut as OpenHands
// cuts it. The cut is taken without joining heading and output first (which would copy a huge
// output whole); the text sent must be exactly the cut of the joined text.

test('an event is cut in the middle exactly as the joined heading and text would be, at every allowance', () => {
  const step = { kind: 'tool_result' as const, text: 'line one\nline two\n' + 'x'.repeat(40) + '\nlast line', toolName: 'bash' };
  const joined = `TOOL RESULT of bash\n${step.text}`;
  for (let max = 0; max <= joined.length + 2; max++) {
    assert.equal(truncatedEventText(step, max), truncateMiddle(joined, max), `allowance ${max}`);
  }
  assert.ok(truncatedEventText(step, 30).includes(OPENHANDS_TRUNCATION_MARKER));
  assert.ok(truncatedEventText({ ...step, isError: true }, 1000).startsWith('TOOL RESULT of bash (error)\n'));
});
