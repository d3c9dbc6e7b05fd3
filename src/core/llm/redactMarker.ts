// The marker a redacted value is replaced by: `[REDACTED:github-token]`.

export const REDACTED_PREFIX = '[REDACTED:';

export function marker(kind: string): string {
  return `${REDACTED_PREFIX}${kind}]`;
}
