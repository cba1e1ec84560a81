//! The provider table's rows for Anthropic Messages, `output_config.format` json_schema, the sources they cite, and the vendor's own lists
//! (formats, pattern limits).

use super::Action::{Drop, Fail, Keep, Narrow, Relax, Rewrite, Unroll};
use super::Stance::{Accepted, Enforced, Rejected, Uncertain};
use super::has_lookaround;
use super::{Row, SPEC, Source};
use crate::model::Mapping::Anthropic;

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

/// The rows of Anthropic Messages, in the order the README shows them.
pub(super) static ROWS: &[Row] = &[
    row!(
        Anthropic,
        "root",
        Uncertain,
        Fail,
        "a root `$ref` is inlined; a root that is not an object is a fit failure (a root union is a 400 for a tool's input_schema)",
        SPEC
    ),
    row!(Anthropic, "type", Enforced, Keep, ANTHROPIC_DOCS),
    row!(
        Anthropic,
        "no type",
        Uncertain,
        Narrow,
        "narrowed to the type its keywords name, else string|number|boolean|null",
        ANTHROPIC_UNLISTED
    ),
    row!(Anthropic, "enum", Enforced, Keep, ANTHROPIC_DOCS),
    row!(
        Anthropic,
        "enum (object or array values)",
        Rejected,
        Relax,
        "each such value replaced by its shape (its type; for containers, the shapes inside)",
        ANTHROPIC_DOCS
    ),
    row!(Anthropic, "const", Enforced, Keep, ANTHROPIC_DOCS),
    row!(Anthropic, "properties", Enforced, Keep, ANTHROPIC_DOCS),
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
    row!(Anthropic, "items", Enforced, Keep, ANTHROPIC_DOCS),
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
    row!(Anthropic, "anyOf", Enforced, Keep, ANTHROPIC_DOCS),
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
    row!(Anthropic, "not", Uncertain, Drop, ANTHROPIC_UNLISTED),
    row!(Anthropic, "if", Uncertain, Drop, ANTHROPIC_UNLISTED),
    row!(Anthropic, "then", Uncertain, Drop, ANTHROPIC_UNLISTED),
    row!(Anthropic, "else", Uncertain, Drop, ANTHROPIC_UNLISTED),
    row!(
        Anthropic,
        "dependentRequired",
        Uncertain,
        Drop,
        ANTHROPIC_UNLISTED
    ),
    row!(Anthropic, "dependentSchemas", Uncertain, Drop, ANTHROPIC_UNLISTED),
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
    row!(Anthropic, "pattern", Enforced, Keep, ANTHROPIC_DOCS),
    row!(
        Anthropic,
        "pattern (backreference, lookaround, \\b, \\B, a {n,m} bound over 100)",
        Rejected,
        Drop,
        ANTHROPIC_DOCS
    ),
    row!(
        Anthropic,
        "format (date-time, time, date, duration, email, hostname, uri, ipv4, ipv6, uuid)",
        Enforced,
        Keep,
        ANTHROPIC_DOCS
    ),
    row!(Anthropic, "format (other)", Uncertain, Drop, ANTHROPIC_UNLISTED),
    row!(Anthropic, "minimum", Rejected, Drop, ANTHROPIC_DOCS),
    row!(Anthropic, "maximum", Rejected, Drop, ANTHROPIC_DOCS),
    row!(Anthropic, "exclusiveMinimum", Rejected, Drop, ANTHROPIC_DOCS),
    row!(Anthropic, "exclusiveMaximum", Rejected, Drop, ANTHROPIC_DOCS),
    row!(Anthropic, "multipleOf", Rejected, Drop, ANTHROPIC_DOCS),
    row!(Anthropic, "minLength", Rejected, Drop, ANTHROPIC_DOCS),
    row!(Anthropic, "maxLength", Rejected, Drop, ANTHROPIC_DOCS),
    row!(Anthropic, "minItems (0 or 1)", Enforced, Keep, ANTHROPIC_DOCS),
    row!(
        Anthropic,
        "minItems (over 1)",
        Rejected,
        Relax,
        "lowered to 1",
        ANTHROPIC_DOCS
    ),
    row!(Anthropic, "maxItems", Rejected, Drop, ANTHROPIC_DOCS),
    row!(Anthropic, "uniqueItems", Rejected, Drop, ANTHROPIC_DOCS),
    row!(Anthropic, "contains", Rejected, Drop, ANTHROPIC_DOCS),
    row!(Anthropic, "minContains", Rejected, Drop, ANTHROPIC_DOCS),
    row!(Anthropic, "maxContains", Rejected, Drop, ANTHROPIC_DOCS),
    row!(
        Anthropic,
        "patternProperties",
        Uncertain,
        Drop,
        ANTHROPIC_UNLISTED
    ),
    row!(Anthropic, "propertyNames", Uncertain, Drop, ANTHROPIC_UNLISTED),
    row!(Anthropic, "minProperties", Uncertain, Drop, ANTHROPIC_UNLISTED),
    row!(Anthropic, "maxProperties", Uncertain, Drop, ANTHROPIC_UNLISTED),
    row!(
        Anthropic,
        "unevaluatedProperties",
        Uncertain,
        Drop,
        ANTHROPIC_UNLISTED
    ),
    row!(Anthropic, "unevaluatedItems", Uncertain, Drop, ANTHROPIC_UNLISTED),
    row!(Anthropic, "$dynamicRef", Uncertain, Drop, ANTHROPIC_UNLISTED),
    row!(
        Anthropic,
        "title, description, default",
        Accepted,
        Keep,
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
