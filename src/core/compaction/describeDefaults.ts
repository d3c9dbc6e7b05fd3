import type { OptionSpec } from './types';

/**
 * A strategy's description with its option defaults filled in, so the two cannot disagree:
 * `{name}` is the default of option `name` (1,000), `{name%}` a share as a percent (10%).
 * An unknown name is a programming error and throws when the strategy module loads.
 */
export function fromDefaults(template: string, options: readonly OptionSpec[]): string {
  return template.replace(/\{(\w+)(%?)\}/g, (_m, name: string, pct: string) => {
    const spec = options.find((o) => o.name === name);
    if (!spec) throw new Error(`description names option "${name}", which the strategy does not have`);
    const v = spec.default;
    if (typeof v !== 'number') return String(v);
    return pct ? `${+(v * 100).toFixed(1)}%` : v.toLocaleString('en-US');
  });
}
