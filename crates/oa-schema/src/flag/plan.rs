//! Each node's keywords laid out for the yes/no evaluator: its `type` as a bit set, and per kind of instance (null,
//! boolean, number, string, array, object) only the checks that can fail on it.
//!
//! The collecting evaluator visits a node's keywords in order and lets each one skip instances of other kinds.
//! `is_valid` runs on every structured-output call and over every element of large instances, where that walk and
//! its dispatch cost more than the checks: a coordinate pair of GeoJSON is `type`, `minItems` and `items` of type
//! `number`. A plan answers `type` from a bit set, picks the node's checks for the instance's kind in one step, and
//! carries the commonest checks' operands inline (lengths, an integer bound, an `items` that is only a `type`); the
//! rest name the compiled keyword they stand for, which the evaluator runs as the collecting evaluator would.

use crate::ecma_regex::EcmaRegex;
use crate::keywords::{self, Bound, Keyword, Shape};
use crate::node::{Body, Node, NodeId};
use crate::types::{JsonType, TypeSet};
use serde_json::Value;
use std::sync::Arc;

/// The kinds of instance a plan splits its checks by.
const KINDS: usize = 6;

/// The kind of a number (see [`kind_of`]).
pub(crate) const NUMBER_KIND: usize = 2;
/// [`kind_of`] a string.
pub(crate) const STRING_KIND: usize = 3;

/// The kind of an instance, as an index into a plan's check lists (the order of `Value`'s variants, so that this
/// compiles to reading the variant's tag).
#[inline]
pub(crate) fn kind_of(instance: &Value) -> usize {
    match instance {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Number(_) => NUMBER_KIND,
        Value::String(_) => STRING_KIND,
        Value::Array(_) => 4,
        Value::Object(_) => 5,
    }
}

/// The kinds of instance in [`kind_of`]'s order, as types (a number is also admitted by `integer`).
pub(crate) const KIND_TYPES: [JsonType; 6] = [
    JsonType::Null,
    JsonType::Boolean,
    JsonType::Number,
    JsonType::String,
    JsonType::Array,
    JsonType::Object,
];

/// A `type` keyword as kinds of instance: one bit test, and the integer test only for numbers when `integer` is
/// named without `number`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Kinds {
    /// Kinds admitted outright, by [`kind_of`] bit.
    mask: u8,
    /// Whether numbers that are integers by value are admitted (numbers not being admitted outright).
    integers: bool,
}

impl Kinds {
    pub(crate) fn of(types: TypeSet) -> Self {
        let mut mask = 0;
        for (kind, ty) in KIND_TYPES.into_iter().enumerate() {
            if types.contains(ty) {
                mask |= 1 << kind;
            }
        }
        Self {
            mask,
            integers: types.contains(JsonType::Integer),
        }
    }

    /// Whether every item after the first `skip` is admitted (`items` that is only a `type`).
    #[inline]
    pub(crate) fn admit_all(self, items: &[Value], skip: u32) -> bool {
        items
            .iter()
            .skip(skip as usize)
            .all(|item| self.admits(kind_of(item), item))
    }

    /// Whether numbers that are integers by value are admitted (outright, or by `integer`).
    #[inline]
    pub(crate) fn admits_integers(self) -> bool {
        self.integers || self.admits_kind(NUMBER_KIND)
    }

    /// Whether every instance of kind `kind` (see [`kind_of`]) is admitted, without looking at it.
    #[inline]
    pub(crate) fn admits_kind(self, kind: usize) -> bool {
        self.mask & (1 << kind) != 0
    }

    /// Whether `instance`, of a kind not admitted outright, may be admitted by value (a number, when integers are).
    #[inline]
    pub(crate) fn may_admit(self, instance: &Value) -> bool {
        self.integers && instance.is_number()
    }

    /// Whether an instance of kind `kind` (see [`kind_of`]) is admitted.
    #[inline]
    pub(crate) fn admits(self, kind: usize, instance: &Value) -> bool {
        if self.mask & (1 << kind) != 0 {
            return true;
        }
        match instance {
            Value::Number(number) if self.integers => crate::types::is_integer(number),
            _ => false,
        }
    }
}

/// One node, ready for the yes/no evaluator.
#[derive(Debug)]
pub(crate) struct Plan {
    /// The node's `type` (every type when it has none; none for the `false` schema).
    pub(crate) types: Kinds,
    /// Whether the node is the `true` schema, which holds even past the depth limit (the collecting evaluator
    /// answers it before counting depth).
    pub(crate) always: bool,
    /// Per kind of instance, the range of `checks` to run (8 bits: a plan is 32 bytes; a node with more than 255
    /// checks is handed back whole).
    ranges: [(u8, u8); KINDS],
    checks: Box<[Check]>,
}

impl Plan {
    /// The checks to run on an instance of kind `kind` (see [`kind_of`]) once its type is admitted.
    #[inline]
    pub(crate) fn checks_for(&self, kind: usize) -> &[Check] {
        let (start, end) = self.ranges.get(kind).copied().unwrap_or((0, 0));
        self.checks
            .get(usize::from(start)..usize::from(end))
            .unwrap_or(&[])
    }
}

/// One check of a plan. The keywords most instances meet carry their compiled operands (shared with the node), so
/// that running one is a single step from the plan rather than a lookup of the node's keyword and a second dispatch.
#[derive(Debug, Clone)]
pub(crate) enum Check {
    /// The node's keyword at this index, run as compiled.
    Keyword(u16),
    /// The whole node, by the collecting evaluator (it tracks evaluated properties or items).
    HandBack,
    /// `$ref`, or a `$dynamicRef` that resolves statically.
    Ref(NodeId),
    /// `not`.
    Not(NodeId),
    /// `minItems`.
    MinItems(u64),
    /// `maxItems`.
    MaxItems(u64),
    /// `minLength`.
    MinLength(u64),
    /// `maxLength`.
    MaxLength(u64),
    /// `minProperties`.
    MinProperties(u64),
    /// `maxProperties`.
    MaxProperties(u64),
    /// `items` whose schema is only a `type`: one loop, no descent.
    ItemsOfType { types: Kinds, skip: u32 },
    /// `items`.
    Items { node: NodeId, skip: u32 },
    /// `items` whose schema is only a `$ref` (`{"items": {"$ref": "#/$defs/node"}}`, a tree's children): each item
    /// follows the reference at the item's depth, without the item node's own dispatch.
    ItemsRef { target: NodeId, skip: u32 },
    /// `items` whose schema is an array of items of one type with counts (coordinate pairs, rows of a matrix): one
    /// loop over the items and their items, no descent.
    ItemsOfArrays(Box<keywords::items::ArraysOf>),
    /// A bound whose limit is a short integer: integer instances compare exactly without the decimal path; other
    /// numbers run the keyword at `index`.
    IntBound { bound: Bound, limit: i64, index: u16 },
    /// `pattern`.
    Pattern(EcmaRegex),
    /// `enum`, or a `const` as the one-value `enum` it is.
    Enum(Arc<keywords::enum_::EnumOptions>),
    /// A long `enum` of strings, strings looked up by name.
    Strings(Arc<keywords::enum_::StringEnum>),
    /// A short `enum` of short strings, compared by packed words.
    ShortStrings(Arc<keywords::enum_::ShortStrings>),
    /// `properties` of many names (keyword `index`), by name: each name's schema and whether it is cheap (see
    /// `compile::order_properties_cheap_first`).
    Properties {
        index: u16,
        names: Arc<keywords::names::NameIndex<(NodeId, bool)>>,
    },
    /// `properties` of one name (`if: {properties: {type: {const: …}}}`, a large `allOf` of which is common): the
    /// member looked up, and its schema applied.
    Property { name: Box<str>, node: NodeId },
    /// An `allOf` of `if`/`then` clauses keyed by one property's string `const`: only the matching clauses' `then`.
    IfChain(Arc<keywords::all_of::IfChain>),
    /// `properties`, `required` and `additionalProperties` fused.
    Shape(Arc<Shape>),
    /// `anyOf` of one schema and `{"type": "null"}` (an optional value, as LLM schemas write it): null holds, anything
    /// else is the other member's; near the depth limit the keyword at `index` runs as compiled.
    Nullable { value: NodeId, index: u16 },
    /// `anyOf` or `oneOf` without a discriminator, its members by the kinds their own `type` may admit.
    UnionByKind(Arc<keywords::unions::ByKind>),
}

/// Lays out every node (indices match `nodes`).
pub(crate) fn plans(nodes: &[Node], dynamic_scope_matters: bool) -> Box<[Plan]> {
    nodes
        .iter()
        .map(|node| plan(node, nodes, dynamic_scope_matters))
        .collect()
}

/// Every type (a node without `type`).
pub(crate) fn all_types() -> TypeSet {
    let mut all = TypeSet::default();
    for ty in JsonType::ALL {
        all.insert(ty);
    }
    all
}

fn plan(node: &Node, nodes: &[Node], dynamic_scope_matters: bool) -> Plan {
    let all_types = all_types();
    let keywords = match &node.body {
        Body::Bool(verdict) => {
            return Plan {
                types: Kinds::of(if *verdict { all_types } else { TypeSet::default() }),
                always: *verdict,
                ranges: [(0, 0); KINDS],
                checks: Box::new([]),
            };
        }
        Body::Keywords(keywords) => keywords,
    };
    let mut types = all_types;
    // Each keyword's check and the kinds it applies to, in the node's order (cheap ones first).
    let mut laid_out: Vec<(Check, u8)> = Vec::with_capacity(keywords.len());
    for (index, keyword) in keywords.iter().enumerate() {
        if let Keyword::Type(own) = keyword {
            types = *own;
            continue;
        }
        let Ok(index) = u16::try_from(index) else {
            // Beyond any real schema (a node holds at most one keyword of each kind): answered by hand-back.
            laid_out.clear();
            laid_out.push((Check::HandBack, ALL_KINDS));
            break;
        };
        laid_out.push(check(keyword, index, nodes, dynamic_scope_matters));
    }
    if node.tracks_evaluated {
        laid_out.clear();
        laid_out.push((Check::HandBack, ALL_KINDS));
    }
    let mut checks: Vec<Check> = Vec::with_capacity(laid_out.len());
    let mut ranges = [(0_u8, 0_u8); KINDS];
    // A kind's checks are those of `laid_out` whose kinds include it; two kinds whose bits agree on every check
    // (often all of them: a lone `$ref`) share one copy. Compared in place: compiling a large catalog builds
    // hundreds of thousands of plans, and a list per kind was an allocation each.
    let applies = |kind: usize, kinds: u8| kinds & (1 << kind) != 0;
    for kind in 0..KINDS {
        let earlier = (0..kind).find(|earlier| {
            laid_out
                .iter()
                .all(|(_, kinds)| applies(kind, *kinds) == applies(*earlier, *kinds))
        });
        let range = match earlier {
            Some(earlier) => ranges[earlier],
            None => {
                let start = checks.len();
                checks.extend(
                    laid_out
                        .iter()
                        .filter(|(_, kinds)| applies(kind, *kinds))
                        .map(|(check, _)| check.clone()),
                );
                match (u8::try_from(start), u8::try_from(checks.len())) {
                    (Ok(start), Ok(end)) => (start, end),
                    // Past 255 checks (no real schema comes near): the collecting evaluator runs the node.
                    _ => {
                        return Plan {
                            types: Kinds::of(types),
                            always: false,
                            ranges: [(0, 1); KINDS],
                            checks: Box::new([Check::HandBack]),
                        };
                    }
                }
            }
        };
        ranges[kind] = range;
    }
    Plan {
        types: Kinds::of(types),
        always: false,
        ranges,
        checks: checks.into_boxed_slice(),
    }
}

const NULL: u8 = 1;
const BOOLEAN: u8 = 1 << 1;
const NUMBER: u8 = 1 << 2;
const STRING: u8 = 1 << 3;
const ARRAY: u8 = 1 << 4;
const OBJECT: u8 = 1 << 5;
const ALL_KINDS: u8 = NULL | BOOLEAN | NUMBER | STRING | ARRAY | OBJECT;

/// A keyword's check and the kinds of instance it can fail on: the plain checks here, the special forms each
/// keyword's module makes (`numeric::plan_bound`, `items::plan`, `enum_::plan`, `properties::plan`,
/// `unions::plan`, `all_of::plan`); any other keyword runs as compiled (`Check::Keyword`).
fn check(keyword: &Keyword, index: u16, nodes: &[Node], dynamic_scope_matters: bool) -> (Check, u8) {
    let general = Check::Keyword(index);
    match keyword {
        Keyword::Ref(target) => (Check::Ref(*target), ALL_KINDS),
        Keyword::DynamicRef { target, .. } if !dynamic_scope_matters => (Check::Ref(*target), ALL_KINDS),
        Keyword::Not(target) => (Check::Not(*target), ALL_KINDS),
        Keyword::Bound { bound, text, .. } => (
            keywords::numeric::plan_bound(*bound, text, index).unwrap_or(general),
            NUMBER,
        ),
        Keyword::MultipleOf { .. } => (general, NUMBER),
        Keyword::MinLength(limit) => (Check::MinLength(*limit), STRING),
        Keyword::MaxLength(limit) => (Check::MaxLength(*limit), STRING),
        Keyword::Pattern { regex, .. } => (Check::Pattern(regex.clone()), STRING),
        Keyword::Format { .. } => (general, STRING),
        Keyword::MinItems(limit) => (Check::MinItems(*limit), ARRAY),
        Keyword::MaxItems(limit) => (Check::MaxItems(*limit), ARRAY),
        Keyword::Items { node, skip, .. } => (keywords::items::plan(*node, *skip, nodes), ARRAY),
        Keyword::UniqueItems
        | Keyword::PrefixItems(_)
        | Keyword::Contains { .. }
        | Keyword::UnevaluatedItems(_) => (general, ARRAY),
        Keyword::MinProperties(limit) => (Check::MinProperties(*limit), OBJECT),
        Keyword::MaxProperties(limit) => (Check::MaxProperties(*limit), OBJECT),
        Keyword::Properties {
            entries,
            by_name,
            split,
        } => (
            keywords::properties::plan(entries, by_name, *split, index).unwrap_or(general),
            OBJECT,
        ),
        Keyword::Required(_)
        | Keyword::DependentRequired(_)
        | Keyword::Dependencies { .. }
        | Keyword::PatternProperties(_)
        | Keyword::AdditionalProperties { .. }
        | Keyword::PropertyNames(_)
        | Keyword::DependentSchemas(_)
        | Keyword::UnevaluatedProperties(_) => (general, OBJECT),
        Keyword::Shape(shape) => (Check::Shape(Arc::clone(shape)), OBJECT),
        Keyword::Enum(options) => (keywords::enum_::plan(options), ALL_KINDS),
        Keyword::Const(expected) => (keywords::enum_::plan_const(expected), ALL_KINDS),
        Keyword::AnyOf(ids, None) => (
            keywords::unions::plan(false, ids, index, nodes).unwrap_or(general),
            ALL_KINDS,
        ),
        Keyword::OneOf(ids, None) => (
            keywords::unions::plan(true, ids, index, nodes).unwrap_or(general),
            ALL_KINDS,
        ),
        Keyword::AllOf(ids) => (
            keywords::all_of::plan(index, ids, nodes).unwrap_or(general),
            ALL_KINDS,
        ),
        Keyword::Type(_)
        | Keyword::DynamicRef { .. }
        | Keyword::Unresolved { .. }
        | Keyword::AnyOf(..)
        | Keyword::OneOf(..)
        | Keyword::If { .. } => (general, ALL_KINDS),
    }
}

#[cfg(test)]
mod tests {
    use super::{Check, KINDS, Plan, plans};
    use crate::keywords::Keyword;
    use crate::node::{Body, Node};

    #[test]
    fn a_check_is_24_bytes() {
        // A plan's checks are a node's keywords again: each byte counts in a small schema's compiled size.
        assert_eq!(std::mem::size_of::<Check>(), 24);
    }

    #[test]
    fn a_plan_is_32_bytes() {
        // The compiled size of small schemas (issue 5's memory bound) rests on it.
        assert_eq!(std::mem::size_of::<Plan>(), 32);
    }

    #[test]
    fn a_node_with_more_checks_than_a_plan_counts_is_handed_back_whole() {
        let node = |keywords: Vec<Keyword>| Node::new(Body::Keywords(keywords.into()), 0, "#".to_owned(), "");
        let many = node((0..300).map(|_| Keyword::Ref(1)).collect());
        let few = node((0..255).map(|_| Keyword::Ref(1)).collect());
        let nodes = [many, few, Node::new(Body::Bool(true), 0, "#/x".to_owned(), "/x")];
        let laid_out = plans(&nodes, false);
        for kind in 0..KINDS {
            assert!(matches!(laid_out[0].checks_for(kind), [Check::HandBack]));
            assert_eq!(laid_out[1].checks_for(kind).len(), 255);
            assert!(matches!(laid_out[1].checks_for(kind)[0], Check::Ref(1)));
        }
    }
}
