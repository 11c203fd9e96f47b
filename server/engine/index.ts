// server/engine: pure evaluation, shared with the SDK (sdk/) and never copied; it imports nothing outside
// this folder. The evaluation engine's public API: pure functions, no I/O, no runtime-specific APIs. Whoever
// imports it gets re2js as the engine of `matches` at once (the SDK imports the modules it needs directly
// instead and loads re2.ts on demand; see regex.ts).
import './re2'
export * from './types'
export {
  compileFlag,
  compileSegment,
  compileCondition,
  MAX_PREREQUISITE_DEPTH,
  sharingPrerequisites,
  type CompiledSegment,
  type ContextTest,
} from './compile'
export { variantReferences, MAX_VARIANTS, MAX_PREREQUISITES, MAX_DESCRIPTION, MAX_TAGS, MAX_OWNER } from './validate-variants'
export { KEY_PATTERN, ENV_PATTERN } from './names'
export {
  validateFlag,
  validateConditions,
  conditionValueProblem,
  flagValueTypeIssues,
  MAX_RULES,
  MAX_CONDITIONS,
  MAX_PATTERN_LENGTH,
  type FlagValidationOptions,
  type ConditionOptions,
} from './validate'
export { checkJsonLimits, MAX_JSON_BYTES, MAX_JSON_DEPTH } from './limits'
export { compilePredicate, evaluateOperator, type Predicate } from './operators'
export { getProperty, compileAccessor, attributeKey, type PropertyAccessor } from './context'
export { Bucketer, bucketOf, inRollout } from './rollout'
export { murmur3, murmur3After, murmur3Bytes, murmur3Prefix, type Murmur3Prefix } from './murmur'
export { parseSemver, compareSemver, type SemVer } from './semver'
export { parseIsoDate, isIsoDate } from './dates'
export { typeOf } from './value-type'
export { labelIssue, placeOf } from './issue-labels'
export { configValue, segmentKeysOf, type ConfigDefinition } from './documents'
export { setRegexEngine, hasRegexEngine, compileRegex, conditionsUseRegex, type CompiledRegex, type RegexCompiler } from './regex'
export {
  OFREP_REASON,
  InvalidContextError,
  openFeatureContext,
  resolveOpenFeature,
  type OpenFeatureResolution,
  type OpenFeatureFailure,
} from './openfeature'
export { explainFlag, type Explanation, type TraceStep } from './explain'
export { prerequisiteCycle, prerequisiteReach, MAX_PREREQUISITE_CHAIN, MAX_PREREQUISITE_REACH } from './prerequisites'
export { EVALUATION_BUDGET, BULK_EVALUATION_BUDGET, EvaluationBudgetExceeded, withEvaluationBudget, workSpent } from './budget'
export { checkPattern, patternShape, MAX_REPEAT, MAX_PATTERN_PROGRAM, MAX_PATTERNS_PROGRAM } from './pattern-limits'
