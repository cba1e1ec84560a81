//! The provider table's rows for OpenAI Chat Completions, `response_format` json_schema, `strict: true`, the sources they cite, and the vendor's own lists
//! (formats).

use super::Action::{Drop, Fail, Keep, Narrow, Relax, Rewrite};
use super::Stance::{Accepted, Enforced, Rejected, Uncertain};
use super::{Row, Source};
use crate::model::Mapping::OpenAi;

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

/// The rows of OpenAI Chat Completions, in the order the README shows them.
pub(super) static ROWS: &[Row] = &[
    row!(
        OpenAi,
        "root",
        Rejected,
        Fail,
        "a root `$ref` is inlined; a root that is not an object (a union, an array) is a fit failure",
        OPENAI_GUIDE
    ),
    row!(OpenAi, "type", Enforced, Keep, OPENAI_GUIDE),
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
    row!(OpenAi, "properties", Enforced, Keep, OPENAI_GUIDE),
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
    row!(OpenAi, "items", Enforced, Keep, OPENAI_GUIDE),
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
    row!(OpenAi, "not", Rejected, Drop, OPENAI_GUIDE),
    row!(OpenAi, "if", Rejected, Drop, OPENAI_GUIDE),
    row!(OpenAi, "then", Rejected, Drop, OPENAI_GUIDE),
    row!(OpenAi, "else", Rejected, Drop, OPENAI_GUIDE),
    row!(OpenAi, "dependentRequired", Rejected, Drop, OPENAI_GUIDE),
    row!(OpenAi, "dependentSchemas", Rejected, Drop, OPENAI_GUIDE),
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
    row!(OpenAi, "pattern", Enforced, Keep, OPENAI_GUIDE),
    row!(OpenAi, "pattern (lookaround)", Rejected, Drop, OPENAI_SDKS),
    row!(
        OpenAi,
        "format (date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid)",
        Enforced,
        Keep,
        OPENAI_GUIDE
    ),
    row!(OpenAi, "format (other)", Rejected, Drop, OPENAI_LIVE),
    row!(OpenAi, "minimum", Enforced, Keep, OPENAI_GUIDE),
    row!(OpenAi, "maximum", Enforced, Keep, OPENAI_GUIDE),
    row!(OpenAi, "exclusiveMinimum", Enforced, Keep, OPENAI_GUIDE),
    row!(OpenAi, "exclusiveMaximum", Enforced, Keep, OPENAI_GUIDE),
    row!(OpenAi, "multipleOf", Enforced, Keep, OPENAI_GUIDE),
    row!(OpenAi, "minItems", Enforced, Keep, OPENAI_GUIDE),
    row!(OpenAi, "maxItems", Enforced, Keep, OPENAI_GUIDE),
    row!(OpenAi, "minLength", Uncertain, Drop, OPENAI_GUIDE_EARLIER),
    row!(OpenAi, "maxLength", Uncertain, Drop, OPENAI_GUIDE_EARLIER),
    row!(OpenAi, "uniqueItems", Rejected, Drop, OPENAI_LIVE),
    row!(OpenAi, "patternProperties", Uncertain, Drop, OPENAI_GUIDE_EARLIER),
    row!(OpenAi, "propertyNames", Uncertain, Drop, OPENAI_GUIDE_EARLIER),
    row!(OpenAi, "minProperties", Uncertain, Drop, OPENAI_GUIDE_EARLIER),
    row!(OpenAi, "maxProperties", Uncertain, Drop, OPENAI_GUIDE_EARLIER),
    row!(OpenAi, "contains", Uncertain, Drop, OPENAI_GUIDE_EARLIER),
    row!(OpenAi, "minContains", Uncertain, Drop, OPENAI_GUIDE_EARLIER),
    row!(OpenAi, "maxContains", Uncertain, Drop, OPENAI_GUIDE_EARLIER),
    row!(
        OpenAi,
        "unevaluatedProperties",
        Uncertain,
        Drop,
        OPENAI_GUIDE_EARLIER
    ),
    row!(OpenAi, "unevaluatedItems", Uncertain, Drop, OPENAI_GUIDE_EARLIER),
    row!(OpenAi, "$dynamicRef", Uncertain, Drop, OPENAI_GUIDE_EARLIER),
    row!(OpenAi, "title, description", Accepted, Keep, OPENAI_GUIDE),
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
];

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
