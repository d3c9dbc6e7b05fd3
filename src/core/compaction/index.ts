// The compaction engine's public surface, for the CLI and the extension.
export * from './types';
export { parseRange, widenToPairs, RANGE_HELP } from './range';
export { runCompaction, resolveOptions, CompactionInputError } from './runner';
export { checkOption, rangeText } from './options';
export { STRATEGIES, findStrategy, strategyIds } from './registry';
export { toChatMessages, toOpenHandsV0Events } from './export';
export { SaveRefused, defaultExportKind, saveCondensed, type ExportKind, type SaveOptions } from './saveCondensed';
export { redactTrajectory } from './redactTrajectory';
export { defaultRequestsPerFiring, type CompactionMode, type CompactionResult, type ForcedTrigger, type IncrementalPolicy, type OptionSpec, type OptionValue, type OutgoingRequest, type PolicyChoice, type StepFate, type StepRange, type Strategy, type StrategyOptions } from './types';
export { argsObject, contextTextOf, promptTokensOf } from './text';
export { cleanText, extractFacts, failedEdits, filesChanged, filesRead, sameTest, withoutWorkdir } from './extract';
