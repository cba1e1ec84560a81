//! `anyOf` and `oneOf` without a discriminator, their members sorted by the kinds of instance their own `type`
//! may admit: the yes/no evaluator tries only those, without the walk over the others or the keyword's dispatch.
//!
//! `oneOf: [{"type": "string"}, {"type": "array", ...}, {"type": "null"}]` is a common way to say "one of these
//! forms"; walking it tested every member's type in turn. The members tried, their order, and the points where
//! the run starts memoizing are those of the walk (`Flag::any_of`, `Flag::one_of`), so verdicts do not change.

use super::Flag;
use crate::keywords::plan::{KIND_TYPES, NUMBER_KIND, kind_of};
use crate::node::{Node, NodeId};
use crate::types::JsonType;
use serde_json::Value;
use std::sync::Arc;

/// A union laid out by kind (see the module's documentation).
#[derive(Debug)]
pub(crate) struct ByKind {
    /// `oneOf` (else `anyOf`).
    one: bool,
    /// How many members the union has.
    n_members: usize,
    /// Per kind, the range of `members` whose own `type` may admit it.
    ranges: [(u16, u16); KIND_TYPES.len()],
    /// Members as (position in the union, node), kind by kind, each kind's in member order.
    members: Box<[(usize, NodeId)]>,
}

impl ByKind {
    /// The layout of a union over `ids`, when some member's own `type` sets it aside for some kind.
    pub(crate) fn of(one: bool, ids: &[NodeId], nodes: &[Node]) -> Option<Arc<Self>> {
        let admits = |id: NodeId, kind: usize| {
            nodes
                .get(id as usize)
                .and_then(|node| node.own_type)
                .is_none_or(|types| {
                    types.contains(KIND_TYPES[kind])
                        || (kind == NUMBER_KIND && types.contains(JsonType::Integer))
                })
        };
        let mut members = Vec::new();
        let mut ranges = [(0_u16, 0_u16); KIND_TYPES.len()];
        for (kind, range) in ranges.iter_mut().enumerate() {
            let start = u16::try_from(members.len()).ok()?;
            members.extend(
                ids.iter()
                    .enumerate()
                    .filter(|(_, id)| admits(**id, kind))
                    .map(|(position, id)| (position, *id)),
            );
            *range = (start, u16::try_from(members.len()).ok()?);
        }
        (members.len() < ids.len() * KIND_TYPES.len()).then(|| {
            Arc::new(Self {
                one,
                n_members: ids.len(),
                ranges,
                members: members.into_boxed_slice(),
            })
        })
    }

    /// The members whose own `type` may admit an instance of kind `kind`.
    #[inline]
    fn candidates(&self, kind: usize) -> &[(usize, NodeId)] {
        let (start, end) = self.ranges.get(kind).copied().unwrap_or((0, 0));
        self.members
            .get(usize::from(start)..usize::from(end))
            .unwrap_or(&[])
    }
}

impl Flag<'_> {
    /// A union laid out by kind: as `any_of` and `one_of` answer it, trying only the members that may admit the
    /// instance's kind.
    #[inline(never)]
    pub(super) fn union_by_kind(&mut self, union: &ByKind, instance: &Value, depth: u32) -> bool {
        let schema = self.schema;
        let candidates = union.candidates(kind_of(instance));
        let rejects = |id: NodeId| {
            schema
                .nodes
                .get(id as usize)
                .is_none_or(|member| crate::keywords::applicators::rejects_by_type(member, instance))
        };
        if union.one {
            if union.n_members > 1 {
                self.memo_enabled = true;
            }
            let mut n_satisfied = 0_usize;
            for &(_, id) in candidates {
                if !rejects(id) && self.child(id, instance, depth) {
                    n_satisfied += 1;
                    if n_satisfied > 1 {
                        return false;
                    }
                }
            }
            return n_satisfied == 1;
        }
        for &(position, id) in candidates {
            // The walk starts memoizing when it reaches the second member.
            if position > 0 {
                self.memo_enabled = true;
            }
            if !rejects(id) && self.child(id, instance, depth) {
                return true;
            }
        }
        if union.n_members > 1 {
            self.memo_enabled = true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    //! Unions laid out by kind against the collecting evaluator and against the same union that is not laid out
    //! (each member wrapped in an `allOf`, so that none has a `type` of its own).
    use crate::eval::Evaluator;
    use crate::validator::Validator;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    fn any_instance() -> impl Strategy<Value = Value> {
        super::super::tests::instances("[a-c]{0,3}", "[a-b]", 2, 12, 3)
    }

    /// The yes/no verdict on `schema` is the collecting evaluator's and the oracle's (the same union in a form
    /// nothing lays out or skips); returns the verdict.
    fn agrees(schema: &Value, oracle: &Validator, instance: &Value) -> Result<bool, TestCaseError> {
        let validator = Validator::new(schema).unwrap();
        let compiled = validator.compiled();
        let flag = super::super::is_valid(compiled, instance);
        prop_assert_eq!(
            flag,
            Evaluator::new(compiled, true).run(instance),
            "{} {}",
            schema,
            instance
        );
        prop_assert_eq!(flag, oracle.is_valid(instance), "{} {}", schema, instance);
        Ok(flag)
    }

    fn any_member() -> impl Strategy<Value = Value> {
        let types = prop_oneof![
            prop::sample::select(vec![
                "null", "boolean", "integer", "number", "string", "array", "object"
            ])
            .prop_map(|name| json!(name)),
            prop::sample::subsequence(vec!["null", "integer", "number", "string", "array"], 1..3)
                .prop_map(|names| json!(names)),
        ];
        let extra = prop_oneof![
            Just(json!({})),
            Just(json!({ "minimum": 0 })),
            Just(json!({ "maxLength": 1 })),
            Just(json!({ "items": { "type": "integer" } })),
            Just(json!({ "required": ["a"] })),
            Just(json!({ "not": { "const": 1 } })),
        ];
        prop_oneof![
            4 => (prop::option::of(types), extra).prop_map(|(types, mut member)| {
                if let Some(types) = types {
                    member["type"] = types;
                }
                member
            }),
            1 => Just(json!({ "$ref": "#/$defs/d" })),
            1 => any::<bool>().prop_map(Value::Bool),
        ]
    }

    #[test]
    fn unions_by_kind_agree_with_the_collecting_evaluator() {
        let schemas =
            (prop::collection::vec(any_member(), 1..5), any::<bool>()).prop_map(|(members, one)| {
                let keyword = if one { "oneOf" } else { "anyOf" };
                let hidden: Vec<Value> = members
                    .iter()
                    .map(|member| json!({ "allOf": [member] }))
                    .collect();
                let defs = json!({ "d": { "type": ["integer", "string"], "minimum": 1 } });
                (
                    json!({ "$defs": defs, keyword: members }),
                    json!({ "$defs": defs, keyword: hidden }),
                )
            });
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(2048));
        runner
            .run(&(schemas, any_instance()), |((schema, hidden), instance)| {
                let oracle = Validator::new(&hidden).unwrap();
                prop_assert!(!by_kind(oracle.compiled()), "{}", hidden);
                agrees(&schema, &oracle, &instance)?;
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn a_union_of_typed_forms_is_laid_out_by_kind() {
        let schema = json!({ "oneOf": [{ "type": "string" }, { "type": "array" }, { "type": "null" }] });
        let validator = Validator::new(&schema).unwrap();
        assert!(by_kind(validator.compiled()));
        for (instance, valid) in [
            (json!("x"), true),
            (json!([]), true),
            (json!(null), true),
            (json!(1), false),
        ] {
            assert_eq!(validator.is_valid(&instance), valid, "{instance}");
        }
        // Without any member's own `type`, the walk stays.
        let untyped = json!({ "anyOf": [{ "minimum": 1 }, { "maxLength": 2 }] });
        assert!(!by_kind(Validator::new(&untyped).unwrap().compiled()));
    }

    /// Unions whose members all pin one property to the same values (which tells none apart) and another to
    /// their own: members are skipped by the second, and verdicts must not change. The oracle wraps every pin in an
    /// `anyOf`, which no discriminator looks into.
    #[test]
    fn unions_skipped_by_the_telling_pin_agree_with_the_collecting_evaluator() {
        let pin = prop_oneof![
            prop::sample::subsequence(vec!["a", "b", "c"], 1..3).prop_map(|values| json!({ "enum": values })),
            prop::sample::select(vec!["a", "b", "c"]).prop_map(|value| json!({ "const": value })),
        ];
        let member = (
            pin,
            prop::option::of(prop::sample::select(vec!["integer", "string"])),
        )
            .prop_map(|(pin, other)| {
                let mut member = json!({
                    "properties": { "platform": { "enum": ["x", "y"] }, "tag": pin },
                    "required": ["tag"]
                });
                if let Some(other) = other {
                    member["properties"]["n"] = json!({ "type": other });
                }
                member
            });
        let schemas = (prop::collection::vec(member, 2..5), any::<bool>()).prop_map(|(members, one)| {
            let hidden: Vec<Value> = members
                .iter()
                .map(|member| {
                    let mut member = member.clone();
                    for name in ["platform", "tag"] {
                        member["properties"][name] = json!({ "anyOf": [member["properties"][name].take()] });
                    }
                    member
                })
                .collect();
            let keyword = if one { "oneOf" } else { "anyOf" };
            (json!({ keyword: members }), json!({ keyword: hidden }))
        });
        let value = prop_oneof![
            prop::sample::select(vec!["a", "b", "c", "d", "x", "y"]).prop_map(|tag| json!(tag)),
            Just(json!(1)),
        ];
        let instance = (
            prop::option::of(value.clone()),
            prop::option::of(value),
            prop::option::of(any_instance()),
        )
            .prop_map(|(tag, platform, n)| {
                let mut object = serde_json::Map::new();
                for (name, value) in [("tag", tag), ("platform", platform), ("n", n)] {
                    if let Some(value) = value {
                        object.insert(name.to_owned(), value);
                    }
                }
                Value::Object(object)
            });
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(2048));
        runner
            .run(&(schemas, instance), |((schema, hidden), instance)| {
                let oracle = Validator::new(&hidden).unwrap();
                agrees(&schema, &oracle, &instance)?;
                let validator = Validator::new(&schema).unwrap();
                // Reports too: the oracle's violations at the same places with the same messages (its keyword
                // paths differ by the wrappers).
                let report = |validator: &Validator| {
                    validator.validate(&instance).err().map(|violations| {
                        let mut found: Vec<(String, String)> = violations
                            .iter()
                            .map(|violation| {
                                (
                                    violation.instance_location().to_string(),
                                    violation.message().to_owned(),
                                )
                            })
                            .collect();
                        found.sort();
                        found
                    })
                };
                prop_assert_eq!(report(&validator), report(&oracle), "{} {}", schema, instance);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn the_telling_pin_is_the_one_skipped_by() {
        let member = |rule: &str| {
            json!({ "properties": { "platform": { "enum": ["darwin", "linux"] }, "rule": { "enum": [rule] } },
                    "required": ["rule"] })
        };
        let schema = json!({ "oneOf": [member("cli"), member("dir"), member("env")] });
        let validator = Validator::new(&schema).unwrap();
        let discriminator = validator
            .compiled()
            .nodes
            .iter()
            .find_map(|node| match &node.body {
                crate::node::Body::Keywords(keywords) => keywords.iter().find_map(|keyword| match keyword {
                    crate::keywords::Keyword::OneOf(_, Some(discriminator)) => Some(discriminator),
                    _ => None,
                }),
                crate::node::Body::Bool(_) => None,
            })
            .unwrap();
        // The report view keeps the property it had (the first that most members pin).
        assert_eq!(&*discriminator.property, "platform");
        for (instance, valid) in [
            (json!({ "rule": "dir", "platform": "linux" }), true),
            (json!({ "rule": "dir", "platform": "win32" }), false),
            (json!({ "rule": "cfg" }), false),
            (json!({ "platform": "linux" }), false),
        ] {
            assert_eq!(validator.is_valid(&instance), valid, "{instance}");
            assert_eq!(validator.validate(&instance).is_ok(), valid, "{instance}");
        }
    }

    /// Whether some plan runs a union laid out by kind.
    fn by_kind(compiled: &crate::node::CompiledSchema) -> bool {
        compiled.plans.iter().any(|plan| {
            (0..6).any(|kind| {
                plan.checks_for(kind)
                    .iter()
                    .any(|check| matches!(check, crate::keywords::plan::Check::UnionByKind(_)))
            })
        })
    }
}
