//! Compiled keywords: one variant per keyword (or tightly bound family), compiled and evaluated in its own module.

/// Notes a failed part of a keyword's check in `valid` and, unless the evaluator collects every violation, returns
/// `false` from the keyword at once: the early exit every keyword of many parts takes, written once. A macro, so it
/// expands to the very code each keyword wrote out before (the evaluator's hot path: no call, no closure).
macro_rules! fail_part {
    ($ev:ident, $valid:ident, $part_valid:expr) => {
        if !$part_valid {
            $valid = false;
            if !$ev.collect {
                return false;
            }
        }
    };
}

pub(crate) mod all_of;
pub(crate) mod array;
pub(crate) mod contains;
pub(crate) mod discriminator;
pub(crate) mod enum_;
pub(crate) mod format;
#[cfg(test)]
mod homes;
pub(crate) mod if_;
pub(crate) mod items;
pub(crate) mod names;
pub(crate) mod not;
pub(crate) mod numeric;
pub(crate) mod object;
pub(crate) mod properties;
pub(crate) mod ref_;
pub(crate) mod shape;
pub(crate) mod string;
pub(crate) mod type_;
pub(crate) mod unevaluated;
pub(crate) mod unions;

use crate::compile::NodeCompiler;
use crate::dialect::{KeywordSpec, Semantics};
use crate::ecma_regex::EcmaRegex;
use crate::error::SchemaError;
use crate::eval::{Detail, Evaluator, Extra, Frame, Step};
use crate::evaluated::Evaluated;
use crate::format::FormatCheck;
use crate::node::{Node, NodeId};
use crate::number::{MultipleOf, SchemaNumber};
use crate::types::TypeSet;
use crate::violation::ViolationKind;
use serde_json::{Map, Value};

pub(crate) use discriminator::{Discriminator, find_discriminator};
pub(crate) use numeric::Bound;
pub(crate) use shape::{Shape, fuse as fuse_shapes};

/// One `dependentRequired` entry: when the first property is present, the others must be too.
pub(crate) type DependentRule = (Box<str>, Box<[Box<str>]>);

/// A keyword ready to run.
#[derive(Debug)]
pub(crate) enum Keyword {
    /// `$ref`.
    Ref(NodeId),
    /// `$dynamicRef`; `anchor` is set when the statically resolved target declares the matching `$dynamicAnchor`,
    /// which makes the reference dynamic.
    DynamicRef {
        target: NodeId,
        anchor: Option<Box<str>>,
        /// The keyword path step: `/$dynamicRef`, or `/$recursiveRef` (2019-09, compiled to the same).
        keyword: &'static str,
    },
    /// `type`.
    Type(TypeSet),
    /// `const`.
    Const(Value),
    /// `enum` (shared with the yes/no evaluator's plan).
    Enum(std::sync::Arc<enum_::EnumOptions>),
    /// `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`.
    Bound {
        bound: Bound,
        /// Boxed, as `multipleOf`'s divisor: an exact decimal is wider than every other keyword's operands, and
        /// an enum is as wide as its widest variant.
        limit: Box<SchemaNumber>,
        /// The limit as an `f64`, for the exact-when-strict fast comparison.
        approx: Option<f64>,
        text: Box<str>,
    },
    /// `multipleOf`.
    MultipleOf {
        divisor: Box<MultipleOf>,
        /// The divisor when it is a positive `i64`, for the integer fast path.
        integer: Option<i64>,
        text: Box<str>,
    },
    /// `maxLength`.
    MaxLength(u64),
    /// `minLength`.
    MinLength(u64),
    /// `pattern`.
    Pattern { regex: EcmaRegex, pattern: Box<str> },
    /// `format`, when asserted.
    Format { check: FormatCheck, name: Box<str> },
    /// `maxItems`.
    MaxItems(u64),
    /// `minItems`.
    MinItems(u64),
    /// `uniqueItems: true`.
    UniqueItems,
    /// `prefixItems`.
    PrefixItems(Box<[NodeId]>),
    /// `items`, applying after the `prefixItems` ones (or `additionalItems`, after those of an array-form `items`:
    /// `kind` says which, for reports).
    Items {
        node: NodeId,
        skip: usize,
        kind: ViolationKind,
    },
    /// `contains` with `minContains`/`maxContains`.
    Contains {
        node: NodeId,
        min: u64,
        max: Option<u64>,
        min_explicit: bool,
        /// Whether matched items count as evaluated for `unevaluatedItems` (from 2020-12 on).
        annotates: bool,
    },
    /// `maxProperties`.
    MaxProperties(u64),
    /// `minProperties`.
    MinProperties(u64),
    /// `required`.
    Required(Box<[Box<str>]>),
    /// `dependentRequired`.
    DependentRequired(Box<[DependentRule]>),
    /// `properties`.
    Properties {
        /// Entries in evaluation order (cheap members first, see `compile::order_properties_cheap_first`).
        entries: Box<[(Box<str>, NodeId)]>,
        /// The same entries in two groups, each sorted by name: `by_name[..split]` are the cheap members, the rest
        /// apply subschemas. Walking the instance once per group keeps cheap checks (a `const` tag) ahead of
        /// recursive ones, so a union member that does not apply fails before it recurses.
        by_name: Box<[(Box<str>, NodeId)]>,
        /// Where the second group of `by_name` starts.
        split: usize,
    },
    /// `patternProperties`.
    PatternProperties(Box<[(EcmaRegex, NodeId)]>),
    /// `additionalProperties`, with its siblings' names (sorted) and patterns.
    AdditionalProperties {
        node: NodeId,
        names: Box<[Box<str>]>,
        patterns: Box<[EcmaRegex]>,
    },
    /// `propertyNames`.
    PropertyNames(NodeId),
    /// `dependentSchemas`.
    DependentSchemas(Box<[(Box<str>, NodeId)]>),
    /// `dependencies` (the pre-2019 spelling): string arrays and schemas, by triggering property.
    Dependencies {
        required: Box<[DependentRule]>,
        schemas: Box<[(Box<str>, NodeId)]>,
    },
    /// `allOf`.
    AllOf(Box<[NodeId]>),
    /// `anyOf`.
    AnyOf(Box<[NodeId]>, Option<Box<Discriminator>>),
    /// `oneOf`.
    OneOf(Box<[NodeId]>, Option<Box<Discriminator>>),
    /// `not`.
    Not(NodeId),
    /// `if` with its `then` and `else`.
    If {
        if_: NodeId,
        then: Option<NodeId>,
        else_: Option<NodeId>,
    },
    /// `properties`, `required` and `additionalProperties` fused (see [`shape`]).
    Shape(std::sync::Arc<Shape>),
    /// `unevaluatedProperties`.
    UnevaluatedProperties(NodeId),
    /// `unevaluatedItems`.
    UnevaluatedItems(NodeId),
    /// A `$ref`, `$dynamicRef` or `$recursiveRef` (`kind` says which) that resolves to nothing: entry `index` of
    /// `CompiledSchema::unresolved`. Reaching it fails the run (never a verdict).
    Unresolved { index: u32, kind: ViolationKind },
}

impl Keyword {
    /// The keywords this one stands for: a shape's originals, else itself (for code that looks for a keyword
    /// by kind, such as discriminator detection).
    pub(crate) fn parts(&self) -> &[Keyword] {
        match self {
            Self::Shape(shape) => &shape.originals,
            other => std::slice::from_ref(other),
        }
    }

    /// Whether the keyword looks at the value in hand alone, applying no subschema (`type`, `const`, `enum`, the
    /// bounds, `multipleOf`, the lengths, `pattern`, `format`): a node of such keywords is cheap to try first.
    pub(crate) fn checks_value_only(&self) -> bool {
        matches!(
            self,
            Self::Type(_)
                | Self::Const(_)
                | Self::Enum(_)
                | Self::Bound { .. }
                | Self::MultipleOf { .. }
                | Self::MinLength(_)
                | Self::MaxLength(_)
                | Self::Format { .. }
                | Self::Pattern { .. }
        )
    }

    /// Evaluation order: `unevaluated*` need every sibling's annotations, so they run last.
    ///
    /// Otherwise cheap checks go first so that a failing schema (a union member that does not apply) fails fast:
    /// scalar checks, then `properties` (whose cheap members, such as a `const` discriminator, run first), then the
    /// applicators that walk every member or item.
    pub(crate) fn order(&self) -> u8 {
        match self {
            Self::Type(_) | Self::Const(_) | Self::Enum(_) | Self::Required(_) => 0,
            Self::Properties { .. } | Self::Shape(_) => 2,
            Self::Ref(_)
            | Self::DynamicRef { .. }
            | Self::PrefixItems(_)
            | Self::Items { .. }
            | Self::Contains { .. }
            | Self::PatternProperties(_)
            | Self::AdditionalProperties { .. }
            | Self::PropertyNames(_)
            | Self::DependentSchemas(_)
            | Self::Dependencies { .. }
            | Self::AllOf(_)
            | Self::AnyOf(..)
            | Self::OneOf(..)
            | Self::Not(_)
            | Self::If { .. }
            | Self::UniqueItems => 3,
            Self::UnevaluatedProperties(_) | Self::UnevaluatedItems(_) => 4,
            _ => 1,
        }
    }
}

/// Compiles one keyword of a schema object; `None` for keywords that only annotate. A keyword whose meaning
/// changed between drafts compiles by its [`Semantics`]; the others by name, as in 2020-12.
pub(crate) fn compile<'a>(
    cx: &mut NodeCompiler<'_, 'a>,
    spec: &KeywordSpec,
    value: &'a Value,
    object: &'a Map<String, Value>,
) -> Result<Option<Keyword>, SchemaError> {
    let name = spec.name;
    match spec.semantics {
        Semantics::Standard => {}
        Semantics::LegacyItems => return items::compile_legacy_items(cx, value).map(Some),
        Semantics::AdditionalItems => return items::compile_additional_items(cx, object),
        Semantics::Draft4Bound => return numeric::compile_draft4_bound(cx, name, value, object).map(Some),
        // Read by the bound it modifies.
        Semantics::Draft4Exclusive => return Ok(None),
        Semantics::ContainsOne => return contains::compile(cx, object, false, false).map(Some),
        Semantics::ContainsCounted => return contains::compile(cx, object, true, false).map(Some),
        Semantics::RecursiveRef => return ref_::compile_recursive_ref(cx, value).map(Some),
    }
    match name {
        "$ref" => ref_::compile_ref(cx, value).map(Some),
        "$dynamicRef" => ref_::compile_dynamic_ref(cx, value).map(Some),
        "type" => type_::compile(cx, value).map(Some),
        "const" => enum_::compile_const(cx, value).map(Some),
        "enum" => enum_::compile(cx, value).map(Some),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
            numeric::compile_bound(cx, name, value).map(Some)
        }
        "multipleOf" => numeric::compile_multiple_of(cx, value).map(Some),
        "maxLength" => count(cx, name, value).map(|limit| Some(Keyword::MaxLength(limit))),
        "minLength" => count(cx, name, value).map(|limit| Some(Keyword::MinLength(limit))),
        "pattern" => string::compile_pattern(cx, value).map(Some),
        "format" => format::compile(cx, value),
        "maxItems" => count(cx, name, value).map(|limit| Some(Keyword::MaxItems(limit))),
        "minItems" => count(cx, name, value).map(|limit| Some(Keyword::MinItems(limit))),
        "uniqueItems" => Ok(array::compile_unique_items(value)),
        "prefixItems" => items::compile_prefix_items(cx, value).map(Some),
        "items" => items::compile_items(cx, object).map(Some),
        "contains" => contains::compile(cx, object, true, true).map(Some),
        "maxProperties" => count(cx, name, value).map(|limit| Some(Keyword::MaxProperties(limit))),
        "minProperties" => count(cx, name, value).map(|limit| Some(Keyword::MinProperties(limit))),
        "required" => object::compile_required(cx, value).map(Some),
        "dependentRequired" => object::compile_dependent_required(cx, value).map(Some),
        "properties" => properties::compile_properties(cx, value).map(Some),
        "patternProperties" => properties::compile_pattern_properties(cx, value).map(Some),
        "additionalProperties" => properties::compile_additional_properties(cx, object).map(Some),
        "propertyNames" => Ok(Some(properties::compile_property_names(cx))),
        "dependentSchemas" => properties::compile_dependent_schemas(cx, value).map(Some),
        "dependencies" => object::compile_dependencies(cx, value).map(Some),
        "allOf" => all_of::compile(cx, value).map(Some),
        "anyOf" | "oneOf" => unions::compile(cx, name, value).map(Some),
        "not" => Ok(Some(not::compile(cx))),
        "if" => if_::compile(cx, object).map(Some),
        "unevaluatedProperties" => Ok(Some(unevaluated::compile_properties(cx))),
        "unevaluatedItems" => Ok(Some(unevaluated::compile_items(cx))),
        // Core identifiers are handled by the registry; meta-data, content and `then`/`else` (compiled with `if`)
        // only annotate; `$defs` subschemas are compiled when referenced.
        _ => Ok(None),
    }
}

/// Evaluates one keyword.
pub(crate) fn evaluate<'v>(
    ev: &mut Evaluator<'_>,
    keyword: &Keyword,
    node: &Node,
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    match keyword {
        Keyword::Ref(target) => ref_::evaluate_ref(ev, *target, instance, frame, evaluated),
        Keyword::DynamicRef {
            target,
            anchor,
            keyword,
        } => ref_::evaluate_dynamic_ref(
            ev,
            (*target, anchor.as_deref(), keyword),
            instance,
            frame,
            evaluated,
        ),
        Keyword::Type(types) => type_::evaluate(ev, *types, node, instance, frame),
        Keyword::Const(expected) => enum_::evaluate_const(ev, expected, node, instance, frame),
        Keyword::Enum(options) => enum_::evaluate_enum(ev, options, node, instance, frame),
        Keyword::Bound {
            bound,
            limit,
            approx,
            text,
        } => numeric::evaluate_bound(ev, *bound, (limit, *approx), text, node, instance, frame),
        Keyword::MultipleOf {
            divisor,
            integer,
            text,
        } => numeric::evaluate_multiple_of(ev, (divisor, *integer), text, node, instance, frame),
        Keyword::MaxLength(_)
        | Keyword::MinLength(_)
        | Keyword::MaxItems(_)
        | Keyword::MinItems(_)
        | Keyword::MaxProperties(_)
        | Keyword::MinProperties(_) => evaluate_count(ev, keyword, node, instance, frame),
        Keyword::Pattern { regex, pattern } => {
            string::evaluate_pattern(ev, regex, pattern, node, instance, frame)
        }
        Keyword::Format { check, name } => format::evaluate(ev, *check, name, node, instance, frame),
        Keyword::UniqueItems => array::evaluate_unique_items(ev, node, instance, frame),
        Keyword::PrefixItems(nodes) => items::evaluate_prefix_items(ev, nodes, instance, frame, evaluated),
        Keyword::Items {
            node: items,
            skip,
            kind,
        } => items::evaluate_items(ev, (*items, *skip, *kind), node, instance, frame, evaluated),
        Keyword::Contains {
            node: contains,
            min,
            max,
            min_explicit,
            annotates,
        } => contains::evaluate(
            ev,
            *contains,
            (*min, *max, *min_explicit),
            node,
            instance,
            frame,
            evaluated.as_mut().filter(|_| *annotates),
        ),
        Keyword::Required(names) => object::evaluate_required(ev, names, node, instance, frame),
        Keyword::DependentRequired(rules) => object::evaluate_dependent_required(
            ev,
            ViolationKind::DependentRequired,
            rules,
            node,
            instance,
            frame,
        ),
        Keyword::Properties {
            entries,
            by_name,
            split,
        } => {
            let (cheap, rest) = by_name.split_at((*split).min(by_name.len()));
            properties::evaluate_properties(ev, entries, [cheap, rest], instance, frame, evaluated)
        }
        Keyword::PatternProperties(entries) => {
            properties::evaluate_pattern_properties(ev, entries, node, instance, frame, evaluated)
        }
        Keyword::AdditionalProperties {
            node: additional,
            names,
            patterns,
        } => properties::evaluate_additional_properties(
            ev,
            *additional,
            names,
            patterns,
            node,
            instance,
            frame,
            evaluated,
        ),
        Keyword::PropertyNames(names) => properties::evaluate_property_names(ev, *names, instance, frame),
        Keyword::DependentSchemas(entries) => {
            properties::evaluate_dependent_schemas(ev, entries, instance, frame, evaluated)
        }
        Keyword::Dependencies { required, schemas } => {
            let required_ok = object::evaluate_dependent_required(
                ev,
                ViolationKind::Dependencies,
                required,
                node,
                instance,
                frame,
            );
            if !required_ok && !ev.collect {
                return false;
            }
            properties::evaluate_dependent_schemas(ev, schemas, instance, frame, evaluated) && required_ok
        }
        Keyword::AllOf(nodes) => all_of::evaluate_all_of(ev, nodes, instance, frame, evaluated),
        Keyword::AnyOf(nodes, discriminator) => unions::evaluate_any_of(
            ev,
            nodes,
            discriminator.as_deref(),
            node,
            instance,
            frame,
            evaluated,
        ),
        Keyword::OneOf(nodes, discriminator) => unions::evaluate_one_of(
            ev,
            nodes,
            discriminator.as_deref(),
            node,
            instance,
            frame,
            evaluated,
        ),
        Keyword::Not(not) => not::evaluate_not(ev, *not, node, instance, frame),
        Keyword::If { if_, then, else_ } => {
            if_::evaluate(ev, *if_, *then, *else_, instance, frame, evaluated)
        }
        Keyword::Shape(shape) => shape::evaluate(ev, shape, node, instance, frame, evaluated),
        Keyword::UnevaluatedProperties(unevaluated) => {
            unevaluated::evaluate_properties(ev, *unevaluated, node, instance, frame, evaluated)
        }
        Keyword::UnevaluatedItems(unevaluated) => {
            unevaluated::evaluate_items(ev, *unevaluated, node, instance, frame, evaluated)
        }
        Keyword::Unresolved { index, kind } => ref_::evaluate_unresolved(ev, (*index, *kind), frame),
    }
}

/// The subschemas of an array-valued applicator (`allOf`, `anyOf`, `oneOf`), one node each.
pub(crate) fn schema_list(
    cx: &mut NodeCompiler<'_, '_>,
    name: &str,
    value: &Value,
) -> Result<Box<[NodeId]>, SchemaError> {
    let Value::Array(schemas) = value else {
        return Err(cx.invalid(name, "expected a non-empty array of schemas"));
    };
    Ok((0..schemas.len())
        .map(|idx| cx.child(&[name, &idx.to_string()]))
        .collect())
}

/// A non-negative integer keyword value (`2.0` counts); values beyond `u64` saturate.
pub(crate) fn count(cx: &NodeCompiler<'_, '_>, keyword: &str, value: &Value) -> Result<u64, SchemaError> {
    let Value::Number(number) = value else {
        return Err(cx.invalid(keyword, "expected a non-negative integer"));
    };
    if let Some(exact) = number.as_u64() {
        return Ok(exact);
    }
    match number.as_f64() {
        Some(float) if float >= 0.0 && float.fract() == 0.0 => {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // Saturating by design.
            Ok(float as u64)
        }
        _ => Err(cx.invalid(keyword, "expected a non-negative integer")),
    }
}

/// The collecting check the six count bounds share (`maxItems`, `minItems`, `maxProperties`, `minProperties`,
/// `maxLength`, `minLength`): the comparison is the home's (`array::holds_max_items`, ...), and the message (its
/// words, the limit) is only written when a violation is being collected, so the valid path and `is_valid` allocate
/// nothing.
fn evaluate_count(
    ev: &mut Evaluator<'_>,
    keyword: &Keyword,
    node: &Node,
    instance: &Value,
    frame: &Frame<'_, '_>,
) -> bool {
    let (holds, limit) = match *keyword {
        Keyword::MaxItems(limit) => (array::holds_max_items(limit, instance), limit),
        Keyword::MinItems(limit) => (array::holds_min_items(limit, instance), limit),
        Keyword::MaxProperties(limit) => (object::holds_max_properties(limit, instance), limit),
        Keyword::MinProperties(limit) => (object::holds_min_properties(limit, instance), limit),
        Keyword::MaxLength(limit) => (string::holds_max_length(limit, instance), limit),
        Keyword::MinLength(limit) => (string::holds_min_length(limit, instance), limit),
        // Not a count.
        _ => return true,
    };
    if holds {
        return true;
    }
    if !ev.collect {
        return false;
    }
    let (kind, before, after) = match keyword {
        Keyword::MaxItems(_) => (ViolationKind::MaxItems, "must have at most ", " items"),
        Keyword::MinItems(_) => (ViolationKind::MinItems, "must have at least ", " items"),
        Keyword::MaxProperties(_) => (ViolationKind::MaxProperties, "must have at most ", " properties"),
        Keyword::MinProperties(_) => (ViolationKind::MinProperties, "must have at least ", " properties"),
        Keyword::MaxLength(_) => (ViolationKind::MaxLength, "must be at most ", " characters long"),
        _ => (ViolationKind::MinLength, "must be at least ", " characters long"),
    };
    let mut message = ev.message_buffer();
    message.push_str(before);
    crate::eval::push_count(&mut message, limit);
    message.push_str(if limit == 1 { singular(after) } else { after });
    ev.fail(frame, node, kind, crate::eval::Detail::message(message))
}

/// A count bound's closing words for a limit of one (`1 item`, not `1 items`).
fn singular(after: &str) -> &str {
    match after {
        " items" => " item",
        " properties" => " property",
        " characters long" => " character long",
        other => other,
    }
}

/// The node a child id points to, for keywords that special-case `false` subschemas.
pub(crate) fn is_false(ev: &Evaluator<'_>, id: NodeId) -> bool {
    matches!(ev.schema.nodes[id as usize].body, crate::node::Body::Bool(false))
}

/// Applies node `id` to each member or item `entries` yields (`additionalProperties`, `unevaluatedProperties`,
/// `unevaluatedItems`, of `kind`): a `false` node rejects each at itself, any other is descended into. Whether all
/// hold; the first that does not ends it unless a report is being written.
pub(crate) fn apply_to_entries<'v>(
    ev: &mut Evaluator<'_>,
    (id, kind): (NodeId, ViolationKind),
    node: &Node,
    frame: &Frame<'_, 'v>,
    entries: impl Iterator<Item = (Step<'v>, &'v Value)>,
) -> bool {
    let relative = ev.schema.nodes[id as usize].relative();
    let rejects_all = is_false(ev, id);
    let mut valid = true;
    for (step, value) in entries {
        let entry_valid = if rejects_all {
            rejected(ev, kind, step, node, frame)
        } else {
            ev.descend(frame, id, value, Some(step), relative, None)
        };
        fail_part!(ev, valid, entry_valid);
    }
    valid
}

/// Reports a member or item rejected by a `false` subschema (a violation of `kind`), located at itself.
#[cold]
pub(crate) fn rejected(
    ev: &mut Evaluator<'_>,
    kind: ViolationKind,
    step: Step<'_>,
    node: &Node,
    frame: &Frame<'_, '_>,
) -> bool {
    let (parts, extra): (&[&str], _) = match step {
        Step::Key(key) => (&["property is not allowed"], Extra::Key(key)),
        Step::Index(idx) => (&["item is not allowed"], Extra::Index(idx)),
    };
    let mut detail = Detail::parts(parts);
    detail.extra = Some(extra);
    ev.fail(frame, node, kind, detail)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_keyword_stays_small() {
        // Compiled schemas hold one per keyword: every byte counts against issue 5's memory bound.
        assert!(
            size_of::<super::Keyword>() <= 48,
            "{}",
            size_of::<super::Keyword>()
        );
    }
}
