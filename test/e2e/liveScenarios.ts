// Live follow in the real workbench: a real Claude Code session (with a /compact) is written into
// the workspace as an agent would write it, line by line, while the tree shows it. New steps must
// reach the tree (the time from the append to the row's new step count is printed; speed is judged
// by figures, not assertions), the status bar must show the context and the distance to Claude
// Code's trigger, and a notice must say so when the compaction line arrives.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { corpus } from '../helpers/paths';
import { expectedFor } from './expected';
import type { Scenario } from './scenarios';

const SESSION = 'claude-code/compact.jsonl';
const LIVE_FILE = 'live-session.jsonl';
/** Lines written before the file is opened: the user's question, no answer yet. */
const FIRST_PART = 6;

export const LIVE_SCENARIOS: Scenario[] = [
  {
    name: 'live-follow',
    async run({ wb, repo, workspace, shot, extensionLog }) {
      const lines = fs.readFileSync(corpus(SESSION), 'utf8').split(/(?<=\n)/).filter((l) => l.trim() !== '');
      const boundary = lines.findIndex((l) => l.includes('"compact_boundary"'));
      assert.ok(boundary > FIRST_PART, 'the session compacts after its first part');
      // What the tree should say after each line, from the CLI on a copy of the file so far.
      const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'atl-live-'));
      const expected = lines.map((_, i) => {
        const copy = path.join(scratch, `${i + 1}.jsonl`);
        fs.writeFileSync(copy, lines.slice(0, i + 1).join(''));
        return i + 1 >= FIRST_PART ? expectedFor(repo, copy) : undefined;
      });
      fs.rmSync(scratch, { recursive: true, force: true });
      const first = expected[FIRST_PART - 1]!;

      const file = path.join(workspace, LIVE_FILE);
      fs.writeFileSync(file, lines.slice(0, FIRST_PART).join(''));
      await wb.runCommand('Agent Trace Lens: Open Trajectory…');
      await wb.answerFileDialog(file);
      const root = await wb.traceRow(first.title);
      await root.locator('.label-description', { hasText: `${first.steps.toLocaleString('en-US')} steps` }).waitFor({ timeout: 20_000 });

      const bar = wb.statusBarEntry('agentTraceLens.context');
      await bar.waitFor({ timeout: 10_000 });
      const opened = (await bar.textContent())?.trim() ?? '';
      assert.match(opened, /\/ 167k tok · compacts in ≈?[\d.]+k?/, `the context entry says ${JSON.stringify(opened)}`);

      const delays: number[] = [];
      let notice = '';
      for (let i = FIRST_PART; i < lines.length; i++) {
        const want = expected[i]!;
        const before = expected[i - 1]!;
        assert.equal(want.title, first.title, 'the session keeps its title');
        // Watched inside the page from before the append, so the figure is the workbench's own time.
        const shown = want.steps === before.steps ? undefined : wb.page.waitForFunction(
          ({ title, steps }) => Array.from(document.querySelectorAll('.monaco-list-row'))
            .some((row) => (row.querySelector('.label-name')?.textContent ?? '').trim().startsWith(title)
              && (row.querySelector('.label-description')?.textContent ?? '').includes(`${steps} steps`)) && Date.now(),
          { title: want.title, steps: want.steps.toLocaleString('en-US') }, { polling: 'raf', timeout: 20_000 },
        ).then((h) => h.jsonValue() as Promise<number>);
        const appended = Date.now();
        fs.appendFileSync(file, lines[i]);
        if (shown) {
          const at = await shown;
          delays.push(at - appended);
        }
        if (i === boundary) {
          notice = await wb.waitForNotification(/the agent compacted its context/, 15_000);
          await wb.page.waitForTimeout(300);
          await shot('compaction-notice');
          // The notice's button opens the compaction step itself.
          await wb.page.locator('.notification-toast .monaco-button', { hasText: 'Show Step' }).first().click();
          await wb.page.waitForFunction(() => (document.querySelector('.tabs-container .tab.active')?.textContent ?? '').includes('compaction'), undefined, { timeout: 10_000 });
          const text = await wb.activeEditorText();
          assert.match(text, /Conversation compacted/, `the step document says ${JSON.stringify(text.slice(0, 200))}`);
          await wb.closeAllEditors();
        }
      }
      const last = expected[lines.length - 1]!;
      const description = (await (await wb.traceRow(first.title)).locator('.label-description').textContent()) ?? '';
      assert.ok(description.includes(`${last.steps.toLocaleString('en-US')} steps`), `the root says "${description}", not ${last.steps} steps`);
      assert.ok(last.steps > first.steps, 'the session grew in the tree');
      assert.match(notice, new RegExp(`${LIVE_FILE.replace('.', '\\.')}: the agent compacted its context \\(step \\d+: manual compaction`), notice);
      assert.ok(delays.length > 0, 'some appended line made new steps');

      // After the compaction the context is what came after it: the entry names the rule in its tooltip.
      const after = (await bar.textContent())?.trim() ?? '';
      assert.match(after, /\/ 167k tok/);
      const tip = await wb.hoverText(bar);
      assert.match(tip, /Claude Code auto-compacts/);
      assert.match(tip, /167,000 tokens/);
      assert.match(tip, /since the last compaction at step \d+/);
      assert.match(tip, /Compactions in the log so far: 1/);
      await shot('context-tooltip');
      await wb.page.keyboard.press('Escape');

      const log = extensionLog();
      assert.match(log, /Following \S*live-session\.jsonl as it grows \(jsonl\)/);
      assert.ok(!/live-session\.jsonl reloaded/.test(log), 'the growing file was never read again whole');
      const sorted = [...delays].sort((a, b) => a - b);
      console.log(`     ${lines.length - FIRST_PART} lines appended one by one; ${delays.length} brought new steps to the tree after ` +
        `${sorted.map((d) => `${d} ms`).join(', ')} (median ${sorted[Math.floor(sorted.length / 2)]} ms, target under 1 s); context entry: ${JSON.stringify(after)}`);
      await wb.clearNotifications();
    },
  },
];
