//! The provider table: for each mapping's native structured path, which keywords and constructs the vendor enforces,
//! accepts, rejects with a 400, silently ignores, or leaves uncertain, what fitting does with each, and the source
//! checked. The crate README carries the same table, rendered from these rows (a test keeps them equal).
//!
//! An uncertain row is never counted as enforced: fitting either leaves the keyword out (`dropped_uncertain`) or
//! sends it and lists it in the account (`kept_uncertain`), so oa's local validation is what holds it either way.

use serde_json::Value;

use super::account::Reason;
use crate::model::Mapping;

/// What a provider does with a construct on its native structured path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stance {
    /// Accepted and enforced while decoding.
    Enforced,
    /// Accepted; carries no assertion to enforce (an annotation) or is the provider's own requirement.
    Accepted,
    /// Refused with a 400.
    Rejected,
    /// Accepted and silently not enforced.
    Ignored,
    /// The documentation is unclear or silent.
    Uncertain,
}

/// What fitting does with a construct.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    /// Sent as written.
    Keep,
    /// Left out.
    Drop,
    /// Sent in a weaker form.
    Relax,
    /// Said another way the provider takes, accepting the same answers.
    Rewrite,
    /// Sent in a narrower form (fewer answers), never wider.
    Narrow,
    /// Recursion unrolled to a fixed depth (a narrowing).
    Unroll,
    /// Not fittable: a typed fit failure.
    Fail,
}

/// One row: a construct on one mapping.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Row {
    pub(crate) mapping: Mapping,
    /// A keyword, or a keyword with the values the row covers (`format (other)`), or a construct.
    pub(crate) construct: &'static str,
    pub(crate) stance: Stance,
    pub(crate) action: Action,
    /// What fitting does, in a few words (the README's column; read by its test).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fit: &'static str,
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) source: &'static Source,
}

/// Where a row comes from and when it was checked.
#[derive(Debug)]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct Source {
    /// The short tag the README's rows cite.
    pub(crate) tag: &'static str,
    pub(crate) name: &'static str,
    pub(crate) checked: &'static str,
}

impl Row {
    /// The account reason for a clause this row covers, or `None` when the provider enforces it (or it is not a
    /// clause fitting removes).
    pub(crate) fn reason(&self) -> Option<Reason> {
        match (self.action, self.stance) {
            (Action::Keep, Stance::Ignored) => Some(Reason::KeptIgnored),
            (Action::Keep, Stance::Uncertain) => Some(Reason::KeptUncertain),
            (Action::Drop, Stance::Rejected) => Some(Reason::DroppedRejected),
            (Action::Drop, Stance::Ignored) => Some(Reason::DroppedIgnored),
            (Action::Drop, Stance::Uncertain | Stance::Enforced | Stance::Accepted) => {
                Some(Reason::DroppedUncertain)
            }
            (Action::Relax, _) => Some(Reason::Relaxed),
            _ => None,
        }
    }
}

const OPENAI_GUIDE: Source = Source {
    tag: "O1",
    name: "OpenAI Structured Outputs guide, \"Supported schemas\" (developers.openai.com/api/docs/guides/structured-outputs)",
    checked: "2026-12-07",
};
const OPENAI_GUIDE_EARLIER: Source = Source {
    tag: "O2",
    name: "the same guide's earlier \"not supported\" list (no longer in the current text); pydantic-ai profiles/openai.py strips these",
    checked: "2026-12-07",
};
const OPENAI_LIVE: Source = Source {
    tag: "O3",
    name: "live 400s: \"'uri' is not a valid format\", \"schema must have a 'type' key\" (can1357/oh-my-pi#206, #211); uniqueItems, $ref siblings, array without items: rust-genai openai_generated_*_cases.json",
    checked: "2026-12-07",
};
const OPENAI_SDKS: Source = Source {
    tag: "O4",
    name: "pydantic-ai profiles/openai.py (strips `default` in strict mode; wraps a `$ref` with siblings in `anyOf`)",
    checked: "2026-12-07",
};
const ANTHROPIC_DOCS: Source = Source {
    tag: "A1",
    name: "Anthropic structured outputs, \"JSON Schema limitations\" (platform.claude.com/docs/en/build-with-claude/structured-outputs): \"If you use an unsupported feature, you'll receive a 400 error\"",
    checked: "2026-12-07",
};
const ANTHROPIC_UNLISTED: Source = Source {
    tag: "A2",
    name: "not listed in Anthropic's supported or unsupported lists; the SDKs' transform_schema leaves it out",
    checked: "2026-12-07",
};
const ANTHROPIC_LIMITS: Source = Source {
    tag: "A3",
    name: "live 400 \"Schemas contains too many parameters with union types (24 parameters with type arrays or anyOf) ... limit: 16\"; strict-schema limits (24 optional, 16 union) in vendor-schema-subsets.md and LangSchema's Anthropic converter",
    checked: "2026-12-07",
};
const GEMINI_PROTO: Source = Source {
    tag: "G1",
    name: "GenerationConfig.response_json_schema (googleapis generative_service.proto, as the SDKs copy it): \"only the following properties are supported\"",
    checked: "2026-12-07",
};
const GEMINI_GUIDE: Source = Source {
    tag: "G2",
    name: "Gemini structured-output guide (ai.google.dev/gemini-api/docs/structured-output), via vendor-schema-subsets.md",
    checked: "2026-09..12 (digest)",
};
const SPEC: Source = Source {
    tag: "S",
    name: "llm-provider §5: a response_schema has an object at its top",
    checked: "2026-12-07",
};

use Action::{Drop, Fail, Keep, Narrow, Relax, Rewrite, Unroll};
use Mapping::{Anthropic, Gemini, OpenAi};
use Stance::{Accepted, Enforced, Ignored, Rejected, Uncertain};

macro_rules! row {
    ($mapping:ident, $construct:expr, $stance:ident, $action:ident, $fit:expr, $source:ident) => {
        Row {
            mapping: $mapping,
            construct: $construct,
            stance: $stance,
            action: $action,
            fit: $fit,
            source: &$source,
        }
    };
}

/// Every row, by mapping.
pub(crate) static ROWS: &[Row] = &[
    // OpenAI Chat Completions, response_format json_schema, strict: true.
    row!(
        OpenAi,
        "root",
        Rejected,
        Fail,
        "a root `$ref` is inlined; a root that is not an object (a union, an array) is a fit failure",
        OPENAI_GUIDE
    ),
    row!(OpenAi, "type", Enforced, Keep, "sent", OPENAI_GUIDE),
    row!(
        OpenAi,
        "no type",
        Rejected,
        Narrow,
        "narrowed to the type its keywords name, else string|number|boolean|null",
        OPENAI_LIVE
    ),
    row!(
        OpenAi,
        "enum",
        Enforced,
        Keep,
        "sent, with its type",
        OPENAI_GUIDE
    ),
    row!(
        OpenAi,
        "const",
        Enforced,
        Keep,
        "sent, with its type",
        OPENAI_GUIDE
    ),
    row!(
        OpenAi,
        "enum (object or array values)",
        Uncertain,
        Relax,
        "each such value replaced by its shape (its type; for containers, the shapes inside)",
        OPENAI_GUIDE
    ),
    row!(OpenAi, "properties", Enforced, Keep, "sent", OPENAI_GUIDE),
    row!(
        OpenAi,
        "required (not every property)",
        Rejected,
        Rewrite,
        "every property required; an optional one made nullable unless the caller's schema allows null, and null mapped back to absent",
        OPENAI_GUIDE
    ),
    row!(
        OpenAi,
        "additionalProperties: false",
        Enforced,
        Keep,
        "sent",
        OPENAI_GUIDE
    ),
    row!(
        OpenAi,
        "additionalProperties (absent, true, a schema)",
        Rejected,
        Narrow,
        "object closed",
        OPENAI_GUIDE
    ),
    row!(OpenAi, "items", Enforced, Keep, "sent", OPENAI_GUIDE),
    row!(
        OpenAi,
        "array without items",
        Rejected,
        Narrow,
        "items narrowed to string|number|boolean|null",
        OPENAI_LIVE
    ),
    row!(
        OpenAi,
        "prefixItems",
        Uncertain,
        Relax,
        "positions merged into one `items` union; a closed tuple bounded by maxItems",
        OPENAI_GUIDE_EARLIER
    ),
    row!(
        OpenAi,
        "anyOf",
        Enforced,
        Keep,
        "sent (not at the root)",
        OPENAI_GUIDE
    ),
    row!(
        OpenAi,
        "oneOf",
        Rejected,
        Relax,
        "sent as anyOf (no account entry when the branches cannot overlap)",
        OPENAI_LIVE
    ),
    row!(
        OpenAi,
        "allOf",
        Rejected,
        Rewrite,
        "members merged into the schema; a clause that cannot merge is dropped (dropped_rejected)",
        OPENAI_GUIDE
    ),
    row!(OpenAi, "not", Rejected, Drop, "dropped", OPENAI_GUIDE),
    row!(OpenAi, "if", Rejected, Drop, "dropped", OPENAI_GUIDE),
    row!(OpenAi, "then", Rejected, Drop, "dropped", OPENAI_GUIDE),
    row!(OpenAi, "else", Rejected, Drop, "dropped", OPENAI_GUIDE),
    row!(
        OpenAi,
        "dependentRequired",
        Rejected,
        Drop,
        "dropped",
        OPENAI_GUIDE
    ),
    row!(
        OpenAi,
        "dependentSchemas",
        Rejected,
        Drop,
        "dropped",
        OPENAI_GUIDE
    ),
    row!(
        OpenAi,
        "$ref, $defs, recursion",
        Enforced,
        Keep,
        "sent as `$defs` (a root recursion as `#`)",
        OPENAI_GUIDE
    ),
    row!(
        OpenAi,
        "$ref with sibling keywords",
        Rejected,
        Rewrite,
        "written as `anyOf: [{$ref}]` beside them, or merged",
        OPENAI_SDKS
    ),
    row!(OpenAi, "pattern", Enforced, Keep, "sent", OPENAI_GUIDE),
    row!(
        OpenAi,
        "pattern (lookaround)",
        Rejected,
        Drop,
        "dropped",
        OPENAI_SDKS
    ),
    row!(
        OpenAi,
        "format (date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid)",
        Enforced,
        Keep,
        "sent",
        OPENAI_GUIDE
    ),
    row!(OpenAi, "format (other)", Rejected, Drop, "dropped", OPENAI_LIVE),
    row!(OpenAi, "minimum", Enforced, Keep, "sent", OPENAI_GUIDE),
    row!(OpenAi, "maximum", Enforced, Keep, "sent", OPENAI_GUIDE),
    row!(OpenAi, "exclusiveMinimum", Enforced, Keep, "sent", OPENAI_GUIDE),
    row!(OpenAi, "exclusiveMaximum", Enforced, Keep, "sent", OPENAI_GUIDE),
    row!(OpenAi, "multipleOf", Enforced, Keep, "sent", OPENAI_GUIDE),
    row!(OpenAi, "minItems", Enforced, Keep, "sent", OPENAI_GUIDE),
    row!(OpenAi, "maxItems", Enforced, Keep, "sent", OPENAI_GUIDE),
    row!(
        OpenAi,
        "minLength",
        Uncertain,
        Drop,
        "dropped",
        OPENAI_GUIDE_EARLIER
    ),
    row!(
        OpenAi,
        "maxLength",
        Uncertain,
        Drop,
        "dropped",
        OPENAI_GUIDE_EARLIER
    ),
    row!(OpenAi, "uniqueItems", Rejected, Drop, "dropped", OPENAI_LIVE),
    row!(
        OpenAi,
        "patternProperties",
        Uncertain,
        Drop,
        "dropped",
        OPENAI_GUIDE_EARLIER
    ),
    row!(
        OpenAi,
        "propertyNames",
        Uncertain,
        Drop,
        "dropped",
        OPENAI_GUIDE_EARLIER
    ),
    row!(
        OpenAi,
        "minProperties",
        Uncertain,
        Drop,
        "dropped",
        OPENAI_GUIDE_EARLIER
    ),
    row!(
        OpenAi,
        "maxProperties",
        Uncertain,
        Drop,
        "dropped",
        OPENAI_GUIDE_EARLIER
    ),
    row!(
        OpenAi,
        "contains",
        Uncertain,
        Drop,
        "dropped",
        OPENAI_GUIDE_EARLIER
    ),
    row!(
        OpenAi,
        "minContains",
        Uncertain,
        Drop,
        "dropped",
        OPENAI_GUIDE_EARLIER
    ),
    row!(
        OpenAi,
        "maxContains",
        Uncertain,
        Drop,
        "dropped",
        OPENAI_GUIDE_EARLIER
    ),
    row!(
        OpenAi,
        "unevaluatedProperties",
        Uncertain,
        Drop,
        "dropped",
        OPENAI_GUIDE_EARLIER
    ),
    row!(
        OpenAi,
        "unevaluatedItems",
        Uncertain,
        Drop,
        "dropped",
        OPENAI_GUIDE_EARLIER
    ),
    row!(
        OpenAi,
        "$dynamicRef",
        Uncertain,
        Drop,
        "dropped",
        OPENAI_GUIDE_EARLIER
    ),
    row!(OpenAi, "title, description", Accepted, Keep, "sent", OPENAI_GUIDE),
    row!(
        OpenAi,
        "default and other annotations",
        Uncertain,
        Drop,
        "not sent (no assertion, so not in the account)",
        OPENAI_SDKS
    ),
    row!(
        OpenAi,
        "5,000 properties, 10 levels of nesting",
        Rejected,
        Fail,
        "fit failure",
        OPENAI_GUIDE
    ),
    row!(
        OpenAi,
        "1,000 enum values; 15,000 characters in a string enum over 250 values; 120,000 characters of names and values",
        Rejected,
        Fail,
        "fit failure",
        OPENAI_GUIDE
    ),
    // Anthropic Messages, output_config.format json_schema.
    row!(
        Anthropic,
        "root",
        Uncertain,
        Fail,
        "a root `$ref` is inlined; a root that is not an object is a fit failure (a root union is a 400 for a tool's input_schema)",
        SPEC
    ),
    row!(Anthropic, "type", Enforced, Keep, "sent", ANTHROPIC_DOCS),
    row!(
        Anthropic,
        "no type",
        Uncertain,
        Narrow,
        "narrowed to the type its keywords name, else string|number|boolean|null",
        ANTHROPIC_UNLISTED
    ),
    row!(Anthropic, "enum", Enforced, Keep, "sent", ANTHROPIC_DOCS),
    row!(
        Anthropic,
        "enum (object or array values)",
        Rejected,
        Relax,
        "each such value replaced by its shape (its type; for containers, the shapes inside)",
        ANTHROPIC_DOCS
    ),
    row!(Anthropic, "const", Enforced, Keep, "sent", ANTHROPIC_DOCS),
    row!(Anthropic, "properties", Enforced, Keep, "sent", ANTHROPIC_DOCS),
    row!(
        Anthropic,
        "required",
        Enforced,
        Keep,
        "sent (optional properties stay optional)",
        ANTHROPIC_DOCS
    ),
    row!(
        Anthropic,
        "additionalProperties: false",
        Enforced,
        Keep,
        "sent",
        ANTHROPIC_DOCS
    ),
    row!(
        Anthropic,
        "additionalProperties (absent, true, a schema)",
        Rejected,
        Narrow,
        "object closed",
        ANTHROPIC_DOCS
    ),
    row!(Anthropic, "items", Enforced, Keep, "sent", ANTHROPIC_DOCS),
    row!(
        Anthropic,
        "array without items",
        Uncertain,
        Narrow,
        "items narrowed to string|number|boolean|null",
        ANTHROPIC_UNLISTED
    ),
    row!(
        Anthropic,
        "prefixItems",
        Uncertain,
        Relax,
        "positions merged into one `items` union",
        ANTHROPIC_UNLISTED
    ),
    row!(Anthropic, "anyOf", Enforced, Keep, "sent", ANTHROPIC_DOCS),
    row!(
        Anthropic,
        "oneOf",
        Uncertain,
        Relax,
        "sent as anyOf (no account entry when the branches cannot overlap)",
        ANTHROPIC_UNLISTED
    ),
    row!(
        Anthropic,
        "allOf",
        Enforced,
        Rewrite,
        "members merged; a clause that cannot merge kept in an `allOf` without `$ref`",
        ANTHROPIC_DOCS
    ),
    row!(
        Anthropic,
        "allOf with $ref",
        Rejected,
        Rewrite,
        "the referenced schema merged or copied in",
        ANTHROPIC_DOCS
    ),
    row!(Anthropic, "not", Uncertain, Drop, "dropped", ANTHROPIC_UNLISTED),
    row!(Anthropic, "if", Uncertain, Drop, "dropped", ANTHROPIC_UNLISTED),
    row!(Anthropic, "then", Uncertain, Drop, "dropped", ANTHROPIC_UNLISTED),
    row!(Anthropic, "else", Uncertain, Drop, "dropped", ANTHROPIC_UNLISTED),
    row!(
        Anthropic,
        "dependentRequired",
        Uncertain,
        Drop,
        "dropped",
        ANTHROPIC_UNLISTED
    ),
    row!(
        Anthropic,
        "dependentSchemas",
        Uncertain,
        Drop,
        "dropped",
        ANTHROPIC_UNLISTED
    ),
    row!(
        Anthropic,
        "$ref, $defs",
        Enforced,
        Keep,
        "sent as `$defs`",
        ANTHROPIC_DOCS
    ),
    row!(
        Anthropic,
        "$ref with sibling keywords",
        Uncertain,
        Rewrite,
        "the referenced schema copied in under them",
        ANTHROPIC_UNLISTED
    ),
    row!(
        Anthropic,
        "recursion",
        Rejected,
        Unroll,
        "unrolled (each definition recurs 3 more times, at most 12 levels per cycle), then cut at an optional property or a union branch; an array at the cut gets null items (relaxed); a fit failure where nothing can stop it",
        ANTHROPIC_DOCS
    ),
    row!(Anthropic, "pattern", Enforced, Keep, "sent", ANTHROPIC_DOCS),
    row!(
        Anthropic,
        "pattern (backreference, lookaround, \\b, \\B, a {n,m} bound over 100)",
        Rejected,
        Drop,
        "dropped",
        ANTHROPIC_DOCS
    ),
    row!(
        Anthropic,
        "format (date-time, time, date, duration, email, hostname, uri, ipv4, ipv6, uuid)",
        Enforced,
        Keep,
        "sent",
        ANTHROPIC_DOCS
    ),
    row!(
        Anthropic,
        "format (other)",
        Uncertain,
        Drop,
        "dropped",
        ANTHROPIC_UNLISTED
    ),
    row!(Anthropic, "minimum", Rejected, Drop, "dropped", ANTHROPIC_DOCS),
    row!(Anthropic, "maximum", Rejected, Drop, "dropped", ANTHROPIC_DOCS),
    row!(
        Anthropic,
        "exclusiveMinimum",
        Rejected,
        Drop,
        "dropped",
        ANTHROPIC_DOCS
    ),
    row!(
        Anthropic,
        "exclusiveMaximum",
        Rejected,
        Drop,
        "dropped",
        ANTHROPIC_DOCS
    ),
    row!(Anthropic, "multipleOf", Rejected, Drop, "dropped", ANTHROPIC_DOCS),
    row!(Anthropic, "minLength", Rejected, Drop, "dropped", ANTHROPIC_DOCS),
    row!(Anthropic, "maxLength", Rejected, Drop, "dropped", ANTHROPIC_DOCS),
    row!(
        Anthropic,
        "minItems (0 or 1)",
        Enforced,
        Keep,
        "sent",
        ANTHROPIC_DOCS
    ),
    row!(
        Anthropic,
        "minItems (over 1)",
        Rejected,
        Relax,
        "lowered to 1",
        ANTHROPIC_DOCS
    ),
    row!(Anthropic, "maxItems", Rejected, Drop, "dropped", ANTHROPIC_DOCS),
    row!(
        Anthropic,
        "uniqueItems",
        Rejected,
        Drop,
        "dropped",
        ANTHROPIC_DOCS
    ),
    row!(Anthropic, "contains", Rejected, Drop, "dropped", ANTHROPIC_DOCS),
    row!(
        Anthropic,
        "minContains",
        Rejected,
        Drop,
        "dropped",
        ANTHROPIC_DOCS
    ),
    row!(
        Anthropic,
        "maxContains",
        Rejected,
        Drop,
        "dropped",
        ANTHROPIC_DOCS
    ),
    row!(
        Anthropic,
        "patternProperties",
        Uncertain,
        Drop,
        "dropped",
        ANTHROPIC_UNLISTED
    ),
    row!(
        Anthropic,
        "propertyNames",
        Uncertain,
        Drop,
        "dropped",
        ANTHROPIC_UNLISTED
    ),
    row!(
        Anthropic,
        "minProperties",
        Uncertain,
        Drop,
        "dropped",
        ANTHROPIC_UNLISTED
    ),
    row!(
        Anthropic,
        "maxProperties",
        Uncertain,
        Drop,
        "dropped",
        ANTHROPIC_UNLISTED
    ),
    row!(
        Anthropic,
        "unevaluatedProperties",
        Uncertain,
        Drop,
        "dropped",
        ANTHROPIC_UNLISTED
    ),
    row!(
        Anthropic,
        "unevaluatedItems",
        Uncertain,
        Drop,
        "dropped",
        ANTHROPIC_UNLISTED
    ),
    row!(
        Anthropic,
        "$dynamicRef",
        Uncertain,
        Drop,
        "dropped",
        ANTHROPIC_UNLISTED
    ),
    row!(
        Anthropic,
        "title, description, default",
        Accepted,
        Keep,
        "sent",
        ANTHROPIC_DOCS
    ),
    row!(
        Anthropic,
        "other annotations",
        Uncertain,
        Drop,
        "not sent (no assertion, so not in the account)",
        ANTHROPIC_UNLISTED
    ),
    row!(
        Anthropic,
        "16 subschemas with a type array or anyOf",
        Rejected,
        Fail,
        "an optional property's null dropped, then a required nullable property made omittable (mapped back), before a fit failure",
        ANTHROPIC_LIMITS
    ),
    row!(
        Anthropic,
        "24 optional properties",
        Rejected,
        Fail,
        "optional properties made required and nullable (mapped back) while the union limit allows, before a fit failure",
        ANTHROPIC_LIMITS
    ),
    // Gemini generateContent, generationConfig.responseJsonSchema.
    row!(
        Gemini,
        "root",
        Accepted,
        Keep,
        "a root `$ref` is inlined",
        GEMINI_PROTO
    ),
    row!(Gemini, "type", Enforced, Keep, "sent", GEMINI_PROTO),
    row!(
        Gemini,
        "no type",
        Accepted,
        Keep,
        "sent (any value)",
        GEMINI_PROTO
    ),
    row!(Gemini, "enum", Enforced, Keep, "sent", GEMINI_PROTO),
    row!(
        Gemini,
        "enum (values other than strings and numbers)",
        Uncertain,
        Relax,
        "null as a null type, booleans as boolean, objects and arrays as their type",
        GEMINI_PROTO
    ),
    row!(
        Gemini,
        "const",
        Ignored,
        Rewrite,
        "a string or number as a one-value enum, null as type null; other values relaxed to their type",
        GEMINI_PROTO
    ),
    row!(Gemini, "properties", Enforced, Keep, "sent", GEMINI_PROTO),
    row!(Gemini, "required", Enforced, Keep, "sent", GEMINI_PROTO),
    row!(
        Gemini,
        "additionalProperties",
        Uncertain,
        Keep,
        "sent (enforcement not documented)",
        GEMINI_GUIDE
    ),
    row!(Gemini, "items", Enforced, Keep, "sent", GEMINI_PROTO),
    row!(Gemini, "prefixItems", Enforced, Keep, "sent", GEMINI_PROTO),
    row!(Gemini, "minItems", Enforced, Keep, "sent", GEMINI_PROTO),
    row!(Gemini, "maxItems", Enforced, Keep, "sent", GEMINI_PROTO),
    row!(Gemini, "minimum", Enforced, Keep, "sent", GEMINI_PROTO),
    row!(Gemini, "maximum", Enforced, Keep, "sent", GEMINI_PROTO),
    row!(Gemini, "anyOf", Enforced, Keep, "sent", GEMINI_PROTO),
    row!(
        Gemini,
        "oneOf",
        Ignored,
        Relax,
        "sent as anyOf, as Gemini reads it (no account entry when the branches cannot overlap)",
        GEMINI_PROTO
    ),
    row!(
        Gemini,
        "allOf",
        Ignored,
        Rewrite,
        "members merged; a clause that cannot merge is dropped (dropped_ignored)",
        GEMINI_PROTO
    ),
    row!(
        Gemini,
        "$ref, $defs",
        Enforced,
        Keep,
        "sent as `$defs` (a root recursion as `#`)",
        GEMINI_PROTO
    ),
    row!(
        Gemini,
        "$ref with sibling keywords (other than $-keywords)",
        Rejected,
        Rewrite,
        "written as `anyOf: [{$ref}]` beside them, or merged",
        GEMINI_PROTO
    ),
    row!(
        Gemini,
        "recursion through an optional property",
        Enforced,
        Keep,
        "sent (Gemini unrolls it to a limited depth)",
        GEMINI_PROTO
    ),
    row!(
        Gemini,
        "recursion through required properties only",
        Rejected,
        Unroll,
        "unrolled (each definition recurs 3 more times, at most 12 levels per cycle), then cut at an optional property, a union branch or maxItems 0",
        GEMINI_PROTO
    ),
    row!(
        Gemini,
        "format (date-time, date, time)",
        Enforced,
        Keep,
        "sent",
        GEMINI_GUIDE
    ),
    row!(Gemini, "format (other)", Uncertain, Keep, "sent", GEMINI_PROTO),
    row!(
        Gemini,
        "exclusiveMinimum",
        Ignored,
        Relax,
        "sent, with an inclusive minimum beside it (exact for an integer bound on integers)",
        GEMINI_PROTO
    ),
    row!(
        Gemini,
        "exclusiveMaximum",
        Ignored,
        Relax,
        "sent, with an inclusive maximum beside it (exact for an integer bound on integers)",
        GEMINI_PROTO
    ),
    row!(Gemini, "minLength", Ignored, Keep, "sent", GEMINI_PROTO),
    row!(Gemini, "maxLength", Ignored, Keep, "sent", GEMINI_PROTO),
    row!(Gemini, "pattern", Ignored, Keep, "sent", GEMINI_PROTO),
    row!(Gemini, "multipleOf", Ignored, Keep, "sent", GEMINI_PROTO),
    row!(Gemini, "uniqueItems", Ignored, Keep, "sent", GEMINI_PROTO),
    row!(Gemini, "minProperties", Ignored, Keep, "sent", GEMINI_PROTO),
    row!(Gemini, "maxProperties", Ignored, Keep, "sent", GEMINI_PROTO),
    row!(Gemini, "minContains", Ignored, Keep, "sent", GEMINI_PROTO),
    row!(Gemini, "maxContains", Ignored, Keep, "sent", GEMINI_PROTO),
    row!(Gemini, "dependentRequired", Ignored, Keep, "sent", GEMINI_PROTO),
    row!(
        Gemini,
        "not",
        Ignored,
        Drop,
        "dropped (a subschema is not sent unfitted)",
        GEMINI_PROTO
    ),
    row!(
        Gemini,
        "if",
        Ignored,
        Drop,
        "dropped (a subschema is not sent unfitted)",
        GEMINI_PROTO
    ),
    row!(
        Gemini,
        "then",
        Ignored,
        Drop,
        "dropped (a subschema is not sent unfitted)",
        GEMINI_PROTO
    ),
    row!(
        Gemini,
        "else",
        Ignored,
        Drop,
        "dropped (a subschema is not sent unfitted)",
        GEMINI_PROTO
    ),
    row!(
        Gemini,
        "dependentSchemas",
        Ignored,
        Drop,
        "dropped (a subschema is not sent unfitted)",
        GEMINI_PROTO
    ),
    row!(
        Gemini,
        "patternProperties",
        Ignored,
        Drop,
        "dropped (a subschema is not sent unfitted)",
        GEMINI_PROTO
    ),
    row!(
        Gemini,
        "propertyNames",
        Ignored,
        Drop,
        "dropped (a subschema is not sent unfitted)",
        GEMINI_PROTO
    ),
    row!(
        Gemini,
        "contains",
        Ignored,
        Drop,
        "dropped (a subschema is not sent unfitted)",
        GEMINI_PROTO
    ),
    row!(
        Gemini,
        "unevaluatedProperties",
        Ignored,
        Drop,
        "dropped (a subschema is not sent unfitted)",
        GEMINI_PROTO
    ),
    row!(
        Gemini,
        "unevaluatedItems",
        Ignored,
        Drop,
        "dropped (a subschema is not sent unfitted)",
        GEMINI_PROTO
    ),
    row!(Gemini, "$dynamicRef", Ignored, Drop, "dropped", GEMINI_PROTO),
    row!(Gemini, "title, description", Accepted, Keep, "sent", GEMINI_PROTO),
    row!(
        Gemini,
        "other annotations",
        Uncertain,
        Drop,
        "not sent (no assertion, so not in the account)",
        GEMINI_PROTO
    ),
    row!(
        Gemini,
        "size and complexity",
        Uncertain,
        Keep,
        "no published numbers; nothing checked",
        GEMINI_GUIDE
    ),
];

/// The row for `construct` on `mapping`.
pub(crate) fn row(mapping: Mapping, construct: &str) -> Option<&'static Row> {
    ROWS.iter()
        .find(|row| row.mapping == mapping && row.construct == construct)
}

/// The row that covers `keyword` with this `value` on `mapping`, for the keywords fitting treats one by one (the
/// value matters for `format`, `pattern`, `minItems`); `None` for a keyword the table has no row for (an annotation
/// or a keyword outside draft 2020-12's vocabularies).
pub(crate) fn keyword_row(mapping: Mapping, keyword: &str, value: &Value) -> Option<&'static Row> {
    let construct = match (mapping, keyword) {
        (OpenAi, "format") => {
            if value.as_str().is_some_and(|name| OPENAI_FORMATS.contains(&name)) {
                "format (date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid)"
            } else {
                "format (other)"
            }
        }
        (Anthropic, "format") => {
            if value
                .as_str()
                .is_some_and(|name| ANTHROPIC_FORMATS.contains(&name))
            {
                "format (date-time, time, date, duration, email, hostname, uri, ipv4, ipv6, uuid)"
            } else {
                "format (other)"
            }
        }
        (Gemini, "format") => {
            if value.as_str().is_some_and(|name| GEMINI_FORMATS.contains(&name)) {
                "format (date-time, date, time)"
            } else {
                "format (other)"
            }
        }
        (OpenAi, "pattern") if value.as_str().is_some_and(has_lookaround) => "pattern (lookaround)",
        (Anthropic, "pattern") if value.as_str().is_some_and(is_complex_for_anthropic) => {
            "pattern (backreference, lookaround, \\b, \\B, a {n,m} bound over 100)"
        }
        (Anthropic, "minItems") => {
            if value.as_u64().is_some_and(|n| n <= 1) || value.as_f64().is_some_and(|n| n <= 1.0) {
                "minItems (0 or 1)"
            } else {
                "minItems (over 1)"
            }
        }
        (_, keyword) => keyword,
    };
    row(mapping, construct)
}

/// The formats OpenAI's strict mode takes.
pub(crate) const OPENAI_FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];
/// The formats Anthropic lists.
pub(crate) const ANTHROPIC_FORMATS: [&str; 10] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];
/// The formats Gemini's guide names.
pub(crate) const GEMINI_FORMATS: [&str; 3] = ["date-time", "date", "time"];

/// Whether an ECMA-262 pattern has a lookahead or lookbehind group.
pub(crate) fn has_lookaround(pattern: &str) -> bool {
    let mut escaped = false;
    let bytes = pattern.as_bytes();
    for (idx, byte) in bytes.iter().enumerate() {
        if escaped {
            escaped = false;
            continue;
        }
        match byte {
            b'\\' => escaped = true,
            b'(' => {
                let rest = &bytes[idx + 1..];
                if rest.starts_with(b"?=")
                    || rest.starts_with(b"?!")
                    || rest.starts_with(b"?<=")
                    || rest.starts_with(b"?<!")
                {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// The largest `{n,m}` bound Anthropic is taken to compile (its documentation says "large ranges" without a number;
/// this bound is our reading).
pub(crate) const ANTHROPIC_MAX_QUANTIFIER: u64 = 100;

/// Whether a pattern uses what Anthropic's documentation lists as unsupported: a backreference (`\1`, `\k<name>`),
/// lookaround, a word boundary (`\b`, `\B`), or a `{n,m}` quantifier with a bound over
/// [`ANTHROPIC_MAX_QUANTIFIER`].
pub(crate) fn is_complex_for_anthropic(pattern: &str) -> bool {
    if has_lookaround(pattern) {
        return true;
    }
    let bytes = pattern.as_bytes();
    let mut idx = 0;
    let mut in_class = false;
    while idx < bytes.len() {
        match bytes[idx] {
            b'\\' => {
                match bytes.get(idx + 1) {
                    Some(b'1'..=b'9' | b'k') if !in_class => return true,
                    Some(b'b' | b'B') if !in_class => return true,
                    _ => {}
                }
                idx += 2;
                continue;
            }
            b'[' => in_class = true,
            b']' => in_class = false,
            b'{' if !in_class => {
                let digits: String = pattern[idx + 1..]
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == ',')
                    .collect();
                if pattern[idx + 1 + digits.len()..].starts_with('}')
                    && digits.split(',').any(|bound| {
                        bound.parse::<u64>().is_ok_and(|n| n > ANTHROPIC_MAX_QUANTIFIER) || bound.len() > 18
                    })
                {
                    return true;
                }
            }
            _ => {}
        }
        idx += 1;
    }
    false
}

/// The table as Markdown, one table per mapping: what the crate README shows (its test compares them).
#[cfg(test)]
pub(crate) fn markdown() -> String {
    let mut out = String::new();
    for (mapping, title) in [
        (
            OpenAi,
            "OpenAI Chat Completions: `response_format` json_schema, `strict: true`",
        ),
        (
            Anthropic,
            "Anthropic Messages: `output_config.format` json_schema",
        ),
        (
            Gemini,
            "Gemini `generateContent`: `generationConfig.responseJsonSchema`",
        ),
    ] {
        out.push_str(&format!(
            "#### {title}\n\n| construct | provider | fitting | account | source |\n|---|---|---|---|---|\n"
        ));
        let mut cited: Vec<&Source> = Vec::new();
        for row in ROWS.iter().filter(|row| row.mapping == mapping) {
            let stance = match row.stance {
                Enforced => "enforced",
                Accepted => "accepted",
                Rejected => "400",
                Ignored => "ignored",
                Uncertain => "uncertain",
            };
            let account = row.reason().map_or("", Reason::as_str);
            if !cited.iter().any(|source| source.tag == row.source.tag) {
                cited.push(row.source);
            }
            out.push_str(&format!(
                "| {} | {stance} | {} | {account} | {} |\n",
                row.construct.replace('|', "\\|"),
                row.fit.replace('|', "\\|"),
                row.source.tag
            ));
        }
        out.push('\n');
        for source in cited {
            out.push_str(&format!(
                "- {}: {} (checked {})\n",
                source.tag, source.name, source.checked
            ));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_assertion_keyword_has_a_row_on_every_mapping() {
        for mapping in Mapping::ALL {
            for keyword in super::super::doc::SIMPLE {
                let value = match keyword {
                    "format" => json!("uuid"),
                    "pattern" => json!("^a"),
                    _ => json!(1),
                };
                assert!(
                    keyword_row(mapping, keyword, &value).is_some(),
                    "{mapping} has no row for {keyword}"
                );
            }
        }
    }

    #[test]
    fn rows_are_unique_and_every_uncertain_row_is_accounted_or_fails() {
        for (idx, row) in ROWS.iter().enumerate() {
            assert!(
                !ROWS[..idx]
                    .iter()
                    .any(|other| other.mapping == row.mapping && other.construct == row.construct),
                "{} {} twice",
                row.mapping,
                row.construct
            );
            if row.stance == Uncertain && !row.construct.contains("annotations") {
                assert!(
                    row.reason().is_some() || matches!(row.action, Narrow | Fail | Rewrite | Keep),
                    "{} {}: an uncertain row must never count as enforced",
                    row.mapping,
                    row.construct
                );
                if row.action == Keep {
                    assert_eq!(row.reason(), Some(Reason::KeptUncertain));
                }
            }
        }
    }

    #[test]
    fn value_dependent_rows() {
        let construct =
            |mapping, keyword, value: Value| keyword_row(mapping, keyword, &value).map(|row| row.construct);
        assert_eq!(construct(OpenAi, "format", json!("uri")), Some("format (other)"));
        assert_eq!(
            construct(Anthropic, "format", json!("uri")).map(|c| c.starts_with("format (date")),
            Some(true)
        );
        assert_eq!(
            construct(Anthropic, "minItems", json!(1)),
            Some("minItems (0 or 1)")
        );
        assert_eq!(
            construct(Anthropic, "minItems", json!(2)),
            Some("minItems (over 1)")
        );
        assert_eq!(
            construct(OpenAi, "pattern", json!("^(?!x)")),
            Some("pattern (lookaround)")
        );
        assert_eq!(construct(OpenAi, "pattern", json!("^\\(?!x")), Some("pattern"));
        for complex in ["(a)\\1", "\\bword", "a{1,200}", "(?<=x)y", "\\k<n>"] {
            assert!(is_complex_for_anthropic(complex), "{complex}");
        }
        for simple in ["^[a-z]{1,100}$", "\\d+", "[\\b]", "a\\\\b", "x{3}"] {
            assert!(!is_complex_for_anthropic(simple), "{simple}");
        }
    }

    #[test]
    fn print_table() {
        if let Ok(path) = std::env::var("OA_FIT_TABLE_OUT") {
            std::fs::write(path, markdown()).unwrap();
        }
    }

    #[test]
    fn the_readme_shows_the_table_as_the_code_has_it() {
        let readme = include_str!("../../../README.md");
        let start = readme.find("<!-- fit-table:start -->").expect("start marker")
            + "<!-- fit-table:start -->\n".len();
        let end = readme.find("<!-- fit-table:end -->").expect("end marker");
        assert_eq!(
            &readme[start..end],
            markdown(),
            "regenerate the README's table from structured/fit/table.rs (see the test's markdown())"
        );
    }
}
