// Search and filter over a trajectory's steps: the query language, matching and error steps.
export { parseQuery, withFilters, isEmptyQuery, parseKind, QueryError, type FindQuery, type ParseOptions } from './query';
export { findSteps, findMatches, findInTrajectory, matchRanges, snippet, escapeRegExp, type FindOptions, type MatchRange, type StepMatch, type RunMatches } from './match';
export { errorSteps, isErrorStep } from './errors';
export { parseStepAddress, type StepAddress } from './address';
