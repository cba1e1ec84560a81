//! The yes/no evaluator against the collecting one, on generated object shapes, unions and references: the
//! places where it walks on its own.
use crate::eval::Evaluator;
use crate::validator::Validator;
use proptest::prelude::*;
use serde_json::{Value, json};

fn any_instance() -> impl Strategy<Value = Value> {
    instances("[a-cé]{0,3}", "[a-d]", 3, 24, 4)
}

/// The yes/no verdict of `schema` on `instance`, checked against the collecting evaluator's (writing a report).
/// Shared with the tests of the modules below this one.
pub(super) fn flag_agrees(schema: &Value, instance: &Value) -> Result<bool, TestCaseError> {
    let validator = Validator::new(schema).unwrap();
    let compiled = validator.compiled();
    let flag = crate::flag::is_valid(compiled, instance);
    let collected = Evaluator::new(compiled, true).run(instance);
    prop_assert_eq!(flag, collected, "{} {}", schema, instance);
    Ok(flag)
}

/// Small JSON values: scalars near the edges the generated schemas test (small integers, tenths, short strings
/// of `strings`), nested `depth` levels in arrays and objects (keys of `keys`) of fewer than `breadth` entries.
/// Shared with the tests of the modules below this one.
pub(super) fn instances(
    strings: &'static str,
    keys: &'static str,
    depth: u32,
    size: u32,
    breadth: usize,
) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..3).prop_map(|n| json!(n)),
        (-30i64..30).prop_map(|n| json!(n as f64 / 10.0)),
        strings.prop_map(Value::String),
    ];
    leaf.prop_recursive(depth, size, breadth as u32, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..breadth).prop_map(Value::Array),
            prop::collection::btree_map(keys, inner, 0..breadth)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn any_schema() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        prop::sample::select(vec!["null", "integer", "string", "array", "object"])
            .prop_map(|name| json!({ "type": name })),
        (-2i64..2).prop_map(|n| json!({ "minimum": n })),
        (-2i64..2).prop_map(|n| json!({ "exclusiveMaximum": n })),
        Just(json!({ "maximum": 1.5 })),
        (0u64..3).prop_map(|n| json!({ "minLength": n, "maxLength": n + 1 })),
        (0u64..3).prop_map(|n| json!({ "minItems": n, "maxItems": n + 1 })),
        (0u64..3, prop::sample::select(vec!["null", "integer", "string"]))
            .prop_map(|(n, name)| { json!({ "minItems": n, "maxItems": n + 2, "items": { "type": name } }) }),
        (0u64..3).prop_map(|n| json!({ "minProperties": n, "maxProperties": n + 1 })),
        // `items` whose schema is an array of items of one type (the plan's one-loop form), with skips.
        (
            0u64..3,
            prop::sample::select(vec!["null", "integer", "string"]),
            prop::option::of(prop::sample::select(vec!["array", "null"])),
            any::<(bool, bool)>(),
        )
            .prop_map(|(n, name, own, (skip_outer, skip_inner))| {
                let mut item = json!({ "minItems": n, "maxItems": n + 1, "items": { "type": name } });
                if let Some(own) = own {
                    item["type"] = json!(own);
                }
                if skip_inner {
                    item["prefixItems"] = json!([true]);
                }
                let mut schema = json!({ "items": item });
                if skip_outer {
                    schema["prefixItems"] = json!([true]);
                }
                schema
            }),
        Just(json!({ "not": { "type": "string" } })),
        Just(json!({ "enum": ["a", 1, null] })),
        Just(json!({ "enum": ["a", "b"] })),
        Just(json!({ "const": "c" })),
        Just(json!({ "$ref": "#/$defs/d" })),
    ];
    leaf.prop_recursive(3, 24, 3, |inner| {
        let names = prop::sample::subsequence(vec!["a", "b", "c"], 0..3);
        let additional = prop_oneof![
            Just(None),
            Just(Some(json!(false))),
            Just(Some(json!(true))),
            inner.clone().prop_map(Some),
        ];
        prop_oneof![
            (
                prop::collection::btree_map("[a-c]", inner.clone(), 0..3),
                names,
                additional,
                prop::option::of(inner.clone()),
            )
                .prop_map(|(properties, required, additional, patterned)| object_schema(
                    properties, &required, additional, patterned
                )),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|members| json!({ "anyOf": members })),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|members| json!({ "oneOf": members })),
            inner
                .clone()
                .prop_map(|member| json!({ "items": member, "contains": member })),
            (inner.clone(), inner).prop_map(|(a, rest)| {
                json!({ "allOf": [{ "properties": { "a": a } }], "unevaluatedProperties": rest })
            }),
        ]
    })
}

/// A schema that applies one recursive node twice to each level of the instance, without a union (`allOf` of
/// two, `items` beside `contains`), is exponential in the instance's depth unless reference hops are memoized:
/// 2^100 walks for 100 nested arrays. Both evaluators, valid and invalid instances, must finish (before the memo
/// was ungated these ran for hours).
#[test]
#[cfg_attr(
    miri,
    ignore = "a million reference hops before the memo starts: hours under Miri"
)]
fn recursing_twice_per_level_without_a_union_stays_polynomial() {
    let schemas = [
        json!({
            "$defs": { "d": { "type": "array", "allOf": [
                { "items": { "$ref": "#/$defs/d" } }, { "items": { "$ref": "#/$defs/d" } }
            ] } },
            "$ref": "#/$defs/d"
        }),
        json!({
            "$defs": { "d": { "items": { "$ref": "#/$defs/d" }, "contains": { "$ref": "#/$defs/d" } } },
            "$ref": "#/$defs/d"
        }),
    ];
    let nested = |inner: Value| (0..100).fold(inner, |value, _| json!([value]));
    for schema in schemas {
        let validator = Validator::new(&schema).unwrap();
        let compiled = validator.compiled();
        for (instance, valid) in [(nested(json!([])), true), (nested(json!(["x"])), false)] {
            let verdict = super::is_valid(compiled, &instance);
            assert_eq!(Evaluator::new(compiled, true).run(&instance), verdict, "{schema}");
            assert_eq!(validator.validate(&instance).is_ok(), verdict, "{schema}");
            if schema["$defs"]["d"]["type"] == "array" {
                assert_eq!(verdict, valid, "{schema}");
            }
        }
    }
}

/// A schema whose recursion never consumes the instance reaches the depth limit on every path; where the
/// limit falls must not decide the verdict (a union or `not` could otherwise turn the cut-off into success, and
/// memoized results computed near the limit differ between the evaluators). Reaching it fails the run. Runs on
/// the default 2 MiB test thread: both evaluators' recursion to the limit must fit, unoptimized.
#[test]
#[cfg_attr(
    miri,
    ignore = "instances nested past the 512-level depth limit: hours under Miri"
)]
fn reaching_the_depth_limit_fails_the_run_in_both_evaluators() {
    let schemas = [
        (
            json!({
                "$defs": { "d": { "oneOf": [
                    { "$ref": "#/$defs/d" },
                    { "oneOf": [{ "properties": {}, "required": [] }, { "$ref": "#/$defs/d" }] }
                ] } },
                "allOf": [{ "contains": { "$ref": "#/$defs/d" }, "items": { "$ref": "#/$defs/d" } }]
            }),
            vec![json!([null]), json!([1, "a"])],
        ),
        (
            json!({ "$defs": { "d": { "not": { "$ref": "#/$defs/d" } } }, "$ref": "#/$defs/d" }),
            vec![json!(null), json!({ "a": 1 })],
        ),
        (
            json!({ "$defs": { "d": { "anyOf": [{ "$ref": "#/$defs/d" }, true] } }, "$ref": "#/$defs/d" }),
            vec![json!(null), json!([1])],
        ),
        // Two recursions per level: every level past the first limit reached would reach it again, 2^512 walks
        // (each of these ran for hours before the run stopped at its first limit; a proptest found the second).
        (
            json!({
                "$defs": { "d": { "allOf": [{ "not": { "$ref": "#/$defs/d" } }, { "not": { "$ref": "#/$defs/d" } }] } },
                "$ref": "#/$defs/d"
            }),
            vec![json!(1), json!({ "a": [] })],
        ),
        (
            json!({
                "$defs": { "d": { "allOf": [{ "$ref": "#/$defs/d" }, { "$ref": "#/$defs/d" }] } },
                "$ref": "#/$defs/d"
            }),
            vec![json!(1), json!("x")],
        ),
    ];
    for (schema, instances) in schemas {
        let validator = Validator::new(&schema).unwrap();
        for instance in instances {
            let compiled = validator.compiled();
            assert!(!crate::flag::is_valid(compiled, &instance), "{schema} {instance}");
            assert!(
                !Evaluator::new(compiled, true).run(&instance),
                "{schema} {instance}"
            );
            let report = validator.validate(&instance).unwrap_err();
            let messages: Vec<&str> = report.iter().map(|violation| violation.message()).collect();
            assert!(
                messages.iter().any(|message| message.contains("depth limit")),
                "{schema} {instance}: {messages:?}"
            );
            assert!(
                !messages.iter().any(|message| message.contains("internal error")),
                "{schema} {instance}: {messages:?}"
            );
        }
    }
}

/// `items` of arrays of one type answered in one loop must agree with the descent near the depth limit too:
/// the loop runs only while both levels are within it. Each level of the instance is `[deeper, pairs]`:
/// `prefixItems` recurses into `deeper` and sends `pairs` to a definition whose `items` are arrays of numbers,
/// two levels deeper than the recursion goes, so the one-loop check is the deepest step. It is reached at
/// every depth up to and past the limit (two schemas, for both parities of the depth).
#[test]
#[cfg_attr(
    miri,
    ignore = "instances nested past the 512-level depth limit: hours under Miri"
)]
fn arrays_of_one_type_agree_with_the_collecting_evaluator_near_the_depth_limit() {
    let defs = json!({
        "d": { "prefixItems": [{ "$ref": "#/$defs/d" }, { "$ref": "#/$defs/e" }] },
        "e": { "items": { "type": "array", "minItems": 1, "items": { "type": "number" } } }
    });
    let schemas = [
        json!({ "$defs": defs, "$ref": "#/$defs/d" }),
        json!({ "$defs": defs, "allOf": [{ "$ref": "#/$defs/d" }] }),
    ];
    let check = move || {
        for schema in &schemas {
            let validator = Validator::new(schema).unwrap();
            let compiled = validator.compiled();
            for nesting in 240..262 {
                for pairs in [json!([[1], [2]]), json!([[1], []]), json!([["x"]])] {
                    let instance = nested(json!([]), nesting, |inner| json!([inner, pairs.clone()]));
                    assert_flag_agrees(
                        compiled,
                        &instance,
                        format_args!("{schema} nesting {nesting} pairs {pairs}"),
                    );
                }
            }
        }
    };
    on_a_deep_stack(check);
}

/// Asserts that the flag walk and the collecting evaluator without collection agree on `instance`.
fn assert_flag_agrees(
    compiled: &crate::node::CompiledSchema,
    instance: &Value,
    case: std::fmt::Arguments<'_>,
) {
    assert_eq!(
        crate::flag::is_valid(compiled, instance),
        Evaluator::new(compiled, false).run(instance),
        "{case}"
    );
}

/// `innermost` wrapped `nesting` times by `wrap`.
fn nested(innermost: Value, nesting: usize, wrap: impl Fn(Value) -> Value) -> Value {
    (0..nesting).fold(innermost, |inner, _| wrap(inner))
}

/// The union of `members` (`oneOf` when `one`, else `anyOf`) and its oracle: the same union with the pin of each
/// property in `pinned` wrapped in an `anyOf`, which no discriminator looks into (so every member is evaluated).
fn union_and_oracle(members: Vec<Value>, one: bool, pinned: &[&str]) -> (Value, Value) {
    let hidden: Vec<Value> = members
        .iter()
        .map(|member| {
            let mut member = member.clone();
            for name in pinned {
                member["properties"][name] = json!({ "anyOf": [member["properties"][name].take()] });
            }
            member
        })
        .collect();
    let keyword = if one { "oneOf" } else { "anyOf" };
    (json!({ keyword: members }), json!({ keyword: hidden }))
}

/// An object schema: `properties` with `required`, and `additionalProperties` and a `patternProperties` entry
/// for names starting `b` or `d` when given.
fn object_schema(
    properties: std::collections::BTreeMap<String, Value>,
    required: &impl serde::Serialize,
    additional: Option<Value>,
    patterned: Option<Value>,
) -> Value {
    let mut schema = json!({ "properties": properties, "required": required });
    if let Some(additional) = additional {
        schema["additionalProperties"] = additional;
    }
    if let Some(patterned) = patterned {
        schema["patternProperties"] = json!({ "^[bd]": patterned });
    }
    schema
}

/// Runs `check` on a thread with room for the unoptimized recursion of both evaluators over deep instances.
fn on_a_deep_stack(check: impl FnOnce() + Send + 'static) {
    let runner = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(check)
        .unwrap();
    runner.join().unwrap();
}

/// `anyOf` of a schema and `{"type": "null"}` (the plan's nullable check) must agree with the union run as
/// compiled: either member order, null and other instances, and a recursion through it that reaches the depth
/// limit at every position of its three-node cycle.
#[test]
fn nullable_unions_agree_with_the_collecting_evaluator() {
    let only_null = json!({ "type": "null" });
    let members = [
        json!({ "type": "string", "maxLength": 2 }),
        json!({ "type": ["string", "null"], "minLength": 1 }),
        json!({ "required": ["a"] }),
        json!(true),
        json!(false),
        json!({ "not": {} }),
    ];
    let instances = [
        json!(null),
        json!("ab"),
        json!("abc"),
        json!(""),
        json!({ "a": 1 }),
        json!({}),
        json!(5),
    ];
    for member in &members {
        for schema in [
            json!({ "anyOf": [member, only_null] }),
            json!({ "anyOf": [only_null, member] }),
        ] {
            let validator = Validator::new(&schema).unwrap();
            let compiled = validator.compiled();
            for instance in &instances {
                assert_flag_agrees(compiled, instance, format_args!("{schema} {instance}"));
            }
        }
    }
    // The union's node recurs every three steps; entering it one, two or three steps from the root puts it at
    // every depth modulo three, so at the limit itself in one of them.
    let defs =
        json!({ "n": { "anyOf": [{ "type": "array", "items": { "$ref": "#/$defs/n" } }, only_null] } });
    let recursive = [
        json!({ "$defs": defs, "$ref": "#/$defs/n" }),
        json!({ "$defs": defs, "allOf": [{ "$ref": "#/$defs/n" }] }),
        json!({ "$defs": defs, "allOf": [{ "allOf": [{ "$ref": "#/$defs/n" }] }] }),
    ];
    let check = move || {
        for schema in &recursive {
            let validator = Validator::new(schema).unwrap();
            let compiled = validator.compiled();
            for nesting in 165..175 {
                for innermost in [json!(null), json!("x"), json!([])] {
                    let instance = nested(innermost.clone(), nesting, |inner| json!([inner]));
                    assert_flag_agrees(
                        compiled,
                        &instance,
                        format_args!("{schema} nesting {nesting} innermost {innermost}"),
                    );
                }
            }
        }
    };
    on_a_deep_stack(check);
}

/// An `allOf` of `if`/`then` clauses on one property (the plan's chain of them): verdicts must not change,
/// whatever the instance's tag (one of the pinned strings, another, another type, none) or kind. The oracle is
/// the same schema with each pin wrapped in an `anyOf`, which the chain does not recognise.
#[test]
fn if_chains_agree_with_the_collecting_evaluator() {
    let then = prop_oneof![
        Just(json!({ "required": ["x"] })),
        Just(json!({ "properties": { "x": { "type": "integer" } } })),
        Just(json!({ "type": "object" })),
        Just(json!(false)),
        Just(json!({ "not": { "required": ["y"] } })),
    ];
    let clause = (
        prop::sample::select(vec!["a", "b", "c"]),
        prop::sample::select(vec!["tag", "tag", "kind"]),
        then,
    );
    let schemas = (prop::collection::vec(clause, 3..7), any::<bool>()).prop_map(|(clauses, extra)| {
        let mut chained = Vec::new();
        let mut hidden = Vec::new();
        // The chain is on the first clause's property, when three clauses or more share it.
        let first = clauses.first().map(|(_, property, _)| *property);
        let chains = clauses
            .iter()
            .filter(|(_, property, _)| Some(*property) == first)
            .count()
            >= 3;
        for (pin, property, then) in clauses {
            chained.push(json!({ "if": { "properties": { property: { "const": pin } } }, "then": then }));
            hidden.push(json!({
                "if": { "properties": { property: { "anyOf": [{ "const": pin }] } } },
                "then": then
            }));
        }
        if extra {
            chained.push(json!({ "required": ["y"] }));
            hidden.push(json!({ "required": ["y"] }));
        }
        (json!({ "allOf": chained }), json!({ "allOf": hidden }), chains)
    });
    let tag = prop_oneof![
        prop::sample::select(vec!["a", "b", "c", "d"]).prop_map(|tag| json!(tag)),
        Just(json!(1)),
        Just(json!(null)),
    ];
    let object = (
        prop::option::of(tag.clone()),
        prop::option::of(tag),
        prop::option::of(any_instance()),
        any::<bool>(),
    )
        .prop_map(|(tag, kind, x, y)| {
            let mut object = serde_json::Map::new();
            for (name, value) in [("tag", tag), ("kind", kind), ("x", x)] {
                if let Some(value) = value {
                    object.insert(name.to_owned(), value);
                }
            }
            if y {
                object.insert("y".to_owned(), json!(true));
            }
            Value::Object(object)
        });
    let instance = prop_oneof![4 => object, 1 => any_instance()];
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(1024));
    runner
        .run(&(schemas, instance), |((schema, hidden, chains), instance)| {
            let validator = Validator::new(&schema).unwrap();
            let compiled = validator.compiled();
            prop_assert_eq!(has_if_chain(compiled), chains, "{}", schema);
            let flag = crate::flag::is_valid(compiled, &instance);
            prop_assert_eq!(
                flag,
                Evaluator::new(compiled, false).run(&instance),
                "{} {}",
                schema,
                instance
            );
            let oracle = Validator::new(&hidden).unwrap();
            prop_assert!(!has_if_chain(oracle.compiled()), "{}", hidden);
            prop_assert_eq!(
                flag,
                Evaluator::new(oracle.compiled(), false).run(&instance),
                "{} {}",
                schema,
                instance
            );
            Ok(())
        })
        .unwrap();
}

/// Whether some plan runs an `allOf` as a chain of `if`/`then` clauses.
fn has_if_chain(compiled: &crate::node::CompiledSchema) -> bool {
    compiled.plans.iter().any(|plan| {
        (0..6).any(|kind| {
            plan.checks_for(kind)
                .iter()
                .any(|check| matches!(check, crate::flag::plan::Check::IfChain(_)))
        })
    })
}

/// A chain of `if`/`then` clauses recursing through a `then` must agree with the descent near the depth limit:
/// the chain runs only while the `if`s' pins are within it (the recursion entered at every offset).
#[test]
#[cfg_attr(
    miri,
    ignore = "instances nested past the 512-level depth limit: hours under Miri"
)]
fn if_chains_agree_with_the_collecting_evaluator_near_the_depth_limit() {
    let clause = |pin: &str| {
        json!({ "if": { "properties": { "t": { "const": pin } } },
                "then": { "properties": { "c": { "$ref": "#/$defs/n" } } } })
    };
    // One recursing clause per pin: two for one pin would apply the recursion twice at each level.
    let defs = json!({ "n": { "allOf": [clause("a"), clause("b"), clause("c")] } });
    let schemas = [
        json!({ "$defs": defs, "$ref": "#/$defs/n" }),
        json!({ "$defs": defs, "allOf": [{ "$ref": "#/$defs/n" }] }),
        json!({ "$defs": defs, "allOf": [{ "allOf": [{ "$ref": "#/$defs/n" }] }] }),
        json!({ "$defs": defs, "allOf": [{ "allOf": [{ "allOf": [{ "$ref": "#/$defs/n" }] }] }] }),
    ];
    let check = move || {
        for schema in &schemas {
            let validator = Validator::new(schema).unwrap();
            let compiled = validator.compiled();
            assert!(has_if_chain(compiled), "{schema}");
            for nesting in 120..132 {
                for (tag, innermost) in [("a", json!({})), ("b", json!({ "t": "z" })), ("c", json!(5))] {
                    let instance = nested(
                        innermost.clone(),
                        nesting,
                        |inner| json!({ "t": tag, "c": inner }),
                    );
                    assert_flag_agrees(
                        compiled,
                        &instance,
                        format_args!("{schema} nesting {nesting} tag {tag} innermost {innermost}"),
                    );
                }
            }
        }
    };
    on_a_deep_stack(check);
}

/// Unions whose members pin a tag property with `const` or `enum` (the discriminator skips members whose pins
/// exclude the instance's tag): verdicts must not change.
#[test]
fn discriminated_unions_agree_with_the_collecting_evaluator() {
    let pin = prop_oneof![
        prop::sample::subsequence(vec!["a", "b", "c"], 1..3).prop_map(|values| json!({ "enum": values })),
        prop::sample::select(vec!["a", "b", "c"]).prop_map(|value| json!({ "const": value })),
        Just(json!({ "enum": ["a", 1] })),
    ];
    let member = (
        pin,
        prop::option::of(prop::sample::select(vec!["null", "integer", "string"])),
    )
        .prop_map(|(pin, other)| {
            let mut member = json!({ "properties": { "tag": pin } });
            if let Some(other) = other {
                member["properties"]["x"] = json!({ "type": other });
            }
            member
        });
    // The same union twice: as generated, and with each pin wrapped in an `anyOf`, which the discriminator
    // does not look into (the oracle: every member evaluated).
    let schemas = (prop::collection::vec(member, 2..5), any::<bool>())
        .prop_map(|(members, one)| union_and_oracle(members, one, &["tag"]));
    let tag = prop_oneof![
        prop::sample::select(vec!["a", "b", "c", "d"]).prop_map(|tag| json!(tag)),
        Just(json!(1)),
    ];
    let instance = (prop::option::of(tag), prop::option::of(any_instance())).prop_map(|(tag, x)| {
        let mut object = serde_json::Map::new();
        if let Some(tag) = tag {
            object.insert("tag".to_owned(), tag);
        }
        if let Some(x) = x {
            object.insert("x".to_owned(), x);
        }
        Value::Object(object)
    });
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(1024));
    runner
        .run(&(schemas, instance), |((schema, hidden), instance)| {
            let flag = flag_agrees(&schema, &instance)?;
            let oracle = Validator::new(&hidden).unwrap();
            let expected = Evaluator::new(oracle.compiled(), true).run(&instance);
            prop_assert_eq!(flag, expected, "{} {}", schema, instance);
            Ok(())
        })
        .unwrap();
}

/// Object shapes with every fused keyword at once (`properties`, `required`, `patternProperties`,
/// `additionalProperties`), where which members count as additional decides the verdict.
#[test]
fn fused_shapes_agree_with_the_collecting_evaluator() {
    let leaf = || {
        prop_oneof![
            any::<bool>().prop_map(Value::Bool),
            prop::sample::select(vec!["null", "integer", "string", "array", "object"])
                .prop_map(|name| json!({ "type": name })),
        ]
    };
    let schema = (
        prop::collection::btree_map("[a-c]", leaf(), 0..3),
        prop::sample::subsequence(vec!["a", "b", "c", "d"], 0..3),
        prop::option::of(leaf()),
        prop::option::of(leaf()),
    )
        .prop_map(|(properties, required, additional, patterned)| {
            object_schema(properties, &required, additional, patterned)
        });
    let instance = prop::collection::btree_map("[a-e]", any_instance(), 0..5)
        .prop_map(|map| Value::Object(map.into_iter().collect()));
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(1024));
    runner
        .run(&(schema, instance), |(schema, instance)| {
            flag_agrees(&schema, &instance)?;
            Ok(())
        })
        .unwrap();
}

#[test]
fn verdicts_agree_with_the_collecting_evaluator() {
    // Building these nested strategies is stack-hungry in unoptimized builds: run on a roomy thread.
    let run = || {
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(1024));
        let strategy = (any_schema(), any_schema(), any_instance());
        runner
            .run(&strategy, |(root, defined, instance)| {
                let schema = json!({ "$defs": { "d": defined }, "allOf": [root] });
                let validator = Validator::new(&schema).unwrap();
                let compiled = validator.compiled();
                let flag = crate::flag::is_valid(compiled, &instance);
                let collected = Evaluator::new(compiled, true).run(&instance);
                prop_assert_eq!(flag, collected, "{} {}", schema, instance);
                let old_flag = Evaluator::new(compiled, false).run(&instance);
                prop_assert_eq!(flag, old_flag, "{} {}", schema, instance);
                Ok(())
            })
            .unwrap();
    };
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(run)
        .unwrap()
        .join()
        .unwrap();
}

mod objects;
mod unions;
