// The user messages Codex writes itself: context it sends the model, never the person's words.
// Shared by the rollout adapter and by chat exports of Codex sessions (`{messages, meta}`), which
// carry the same messages with the same markers.

import { INTERRUPTED_LABEL, type InjectedRule, labelWith, tagText } from './injected';

/**
 * Context Codex injects as user messages; the model reads it, but no human typed it. Each becomes
 * an `environment` step: it starts no turn and is never a "later request". The session prefix
 * (AGENTS.md and user instructions, the environment context) is what Codex's build_initial_context
 * makes anew after a compaction: `sessionPrefix`.
 */
export const CODEX_INJECTED: readonly InjectedRule[] = [
  { name: 'environment context', match: /^<environment_context>/, label: (t) => labelWith('environment', tagText(t, 'cwd')), sessionPrefix: true },
  { name: 'AGENTS.md instructions', match: /^# AGENTS\.md instructions/, label: () => 'AGENTS.md instructions', sessionPrefix: true },
  { name: 'user instructions', match: /^<user_instructions>/, label: () => 'user instructions', sessionPrefix: true },
  { name: 'instructions', match: /^<INSTRUCTIONS>/, label: () => 'instructions', sessionPrefix: true },
  { name: 'permissions instructions', match: /^<permissions instructions>/, label: () => 'permissions instructions', sessionPrefix: true },
  // What Codex tells the model after the person pressed Esc (the `turn_aborted` event follows it).
  { name: 'turn aborted', match: /^<turn_aborted>/, label: () => INTERRUPTED_LABEL, interruption: true },
  // A subagent's status, sent to the parent as a user message (multi-agent Codex).
  { name: 'subagent notification', match: /^<subagent_notification>/, label: () => 'subagent notification' },
  // A shell command the person ran themselves (`!cmd` in the TUI) and what it printed: told to the
  // model as a user message, but the person's act at the shell, not a request.
  { name: 'shell command', match: /^<user_shell_command>/, label: (t) => `! ${tagText(t, 'command') ?? ''}`.trimEnd().slice(0, 100) },
  // A skill the person invoked (`$coordinator`): Codex sends its SKILL.md as a user message.
  { name: 'skill', match: /^<skill>\s*<name>/, label: (t) => labelWith('skill', tagText(t, 'name')) },
];
