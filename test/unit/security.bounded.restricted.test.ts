// Restricted Mode: the file-size limit, strategy options and follow-the-editor come from user
// settings only while the workspace is not trusted, and nothing opens automatically.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { followsActiveEditor, trustedSetting, USER_ONLY_IN_RESTRICTED_MODE, type InspectableConfiguration } from '../../src/extension/trustedSettings';
import { REPO_ROOT } from '../helpers/paths';

interface Layers { defaultValue?: unknown; globalValue?: unknown; workspaceValue?: unknown; workspaceFolderValue?: unknown }

/** A configuration that resolves like VS Code's: folder over workspace over user over default. */
function fakeConfig(settings: Record<string, Layers>): InspectableConfiguration {
  return {
    get<T>(key: string, fallback: T): T {
      const l = settings[key] ?? {};
      return (l.workspaceFolderValue ?? l.workspaceValue ?? l.globalValue ?? l.defaultValue ?? fallback) as T;
    },
    inspect<T>(key: string) {
      return settings[key] as { defaultValue?: T; globalValue?: T; workspaceValue?: T; workspaceFolderValue?: T } | undefined;
    },
  };
}

const hostileWorkspace = fakeConfig({
  maxFileSizeMB: { defaultValue: 4096, globalValue: 200, workspaceValue: 100_000 },
  strategyOptions: { defaultValue: {}, workspaceFolderValue: { 'observation-masking': { keep_last: 1 } } },
  followActiveEditor: { defaultValue: true, workspaceValue: true },
});

test('security.bounded: in Restricted Mode the workspace cannot raise the file-size limit or set strategy options', () => {
  assert.equal(trustedSetting(hostileWorkspace, 'maxFileSizeMB', 4096, false), 200, "the user's own limit");
  assert.deepEqual(trustedSetting(hostileWorkspace, 'strategyOptions', {}, false), {}, 'the default, not the folder value');
  const noUserValue = fakeConfig({ maxFileSizeMB: { defaultValue: 4096, workspaceValue: 100_000 } });
  assert.equal(trustedSetting(noUserValue, 'maxFileSizeMB', 4096, false), 4096, 'the default when the user set nothing');
});

test('security.bounded: in a trusted workspace the workspace settings apply as usual', () => {
  assert.equal(trustedSetting(hostileWorkspace, 'maxFileSizeMB', 4096, true), 100_000);
  assert.deepEqual(trustedSetting(hostileWorkspace, 'strategyOptions', {}, true), { 'observation-masking': { keep_last: 1 } });
  assert.equal(followsActiveEditor(hostileWorkspace, true), true);
  assert.equal(followsActiveEditor(fakeConfig({ followActiveEditor: { defaultValue: true, globalValue: false } }), true), false);
});

test('security.bounded: in Restricted Mode files are never opened just by becoming the active editor', () => {
  assert.equal(followsActiveEditor(hostileWorkspace, false), false);
  assert.equal(followsActiveEditor(fakeConfig({ followActiveEditor: { defaultValue: true, globalValue: true } }), false), false, 'not even when the user turned it on');
});

test('security.bounded: package.json declares the three settings as restricted configurations', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
  const restricted: string[] = pkg.capabilities.untrustedWorkspaces.restrictedConfigurations;
  const properties = Object.assign({}, ...[pkg.contributes.configuration].flat().map((c: { properties: object }) => c.properties));
  for (const key of USER_ONLY_IN_RESTRICTED_MODE) {
    assert.ok(restricted.includes(`agentTraceLens.${key}`), key);
    assert.ok(`agentTraceLens.${key}` in properties, `${key} is a contributed setting`);
  }
});
