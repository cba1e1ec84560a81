//! The provider table's rows for Gemini `generateContent`, `generationConfig.responseJsonSchema`, the sources they cite, and the vendor's own lists
//! (formats).

use super::Action::{Drop, Keep, Relax, Rewrite, Unroll};
use super::Stance::{Accepted, Enforced, Ignored, Rejected, Uncertain};
use super::{Row, Source};
use crate::model::Mapping::Gemini;

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

/// The rows of Gemini `generateContent`, in the order the README shows them.
pub(super) static ROWS: &[Row] = &[
    row!(
        Gemini,
        "root",
        Accepted,
        Keep,
        "a root `$ref` is inlined",
        GEMINI_PROTO
    ),
    row!(Gemini, "type", Enforced, Keep, GEMINI_PROTO),
    row!(
        Gemini,
        "no type",
        Accepted,
        Keep,
        "sent (any value)",
        GEMINI_PROTO
    ),
    row!(Gemini, "enum", Enforced, Keep, GEMINI_PROTO),
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
    row!(Gemini, "properties", Enforced, Keep, GEMINI_PROTO),
    row!(Gemini, "required", Enforced, Keep, GEMINI_PROTO),
    row!(
        Gemini,
        "additionalProperties",
        Uncertain,
        Keep,
        "sent (enforcement not documented)",
        GEMINI_GUIDE
    ),
    row!(Gemini, "items", Enforced, Keep, GEMINI_PROTO),
    row!(Gemini, "prefixItems", Enforced, Keep, GEMINI_PROTO),
    row!(Gemini, "minItems", Enforced, Keep, GEMINI_PROTO),
    row!(Gemini, "maxItems", Enforced, Keep, GEMINI_PROTO),
    row!(Gemini, "minimum", Enforced, Keep, GEMINI_PROTO),
    row!(Gemini, "maximum", Enforced, Keep, GEMINI_PROTO),
    row!(Gemini, "anyOf", Enforced, Keep, GEMINI_PROTO),
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
        GEMINI_GUIDE
    ),
    row!(Gemini, "format (other)", Uncertain, Keep, GEMINI_PROTO),
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
    row!(Gemini, "minLength", Ignored, Keep, GEMINI_PROTO),
    row!(Gemini, "maxLength", Ignored, Keep, GEMINI_PROTO),
    row!(Gemini, "pattern", Ignored, Keep, GEMINI_PROTO),
    row!(Gemini, "multipleOf", Ignored, Keep, GEMINI_PROTO),
    row!(Gemini, "uniqueItems", Ignored, Keep, GEMINI_PROTO),
    row!(Gemini, "minProperties", Ignored, Keep, GEMINI_PROTO),
    row!(Gemini, "maxProperties", Ignored, Keep, GEMINI_PROTO),
    row!(Gemini, "minContains", Ignored, Keep, GEMINI_PROTO),
    row!(Gemini, "maxContains", Ignored, Keep, GEMINI_PROTO),
    row!(Gemini, "dependentRequired", Ignored, Keep, GEMINI_PROTO),
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
    row!(Gemini, "$dynamicRef", Ignored, Drop, GEMINI_PROTO),
    row!(Gemini, "title, description", Accepted, Keep, GEMINI_PROTO),
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

/// The formats Gemini's guide names.
pub(crate) const GEMINI_FORMATS: [&str; 3] = ["date-time", "date", "time"];
