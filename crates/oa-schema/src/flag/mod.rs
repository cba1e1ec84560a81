//! The yes/no evaluator behind `is_valid`: the same compiled nodes and the same verdicts as the collecting
//! evaluator, without what only a report needs.
//!
//! The collecting evaluator links a frame per step (for instance locations and keyword paths), carries what each
//! subschema evaluated (for `unevaluated*`) and passes all of it to every keyword. A yes/no answer needs none of
//! that, and `is_valid` sits on the hot path of every structured-output call, so this evaluator walks nodes with
//! just the instance and a depth. Scalar keywords share their checks with the collecting evaluator (which never
//! reads a frame when not collecting); applicators are re-walked here. Two things it hands back to the collecting
//! evaluator: a schema whose `$dynamicRef` depends on the dynamic scope (the whole run), and a node with
//! `unevaluated*` (that subtree), since both need what frames carry.

use crate::eval::{Evaluator, Frame, MAX_DEPTH, MEMO_AFTER_HOPS, MemoHasher};
use crate::keywords::{Keyword, array, enum_, format, numeric, object, string};
use crate::node::{Body, CompiledSchema, NodeId};
use plan::{Check, Plan};
use serde_json::Value;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// How many times longer than a run whose union fell back a run without one waits before memoizing its reference
/// hops (see [`Flag::follow`]).
const UNGATED_MEMO_FACTOR: u32 = 16;

mod budget;
pub(crate) mod plan;

/// Whether `instance` is valid against `schema`.
pub(crate) fn is_valid(schema: &CompiledSchema, instance: &Value) -> bool {
    if schema.dynamic_scope_matters {
        return by_the_evaluator(schema, instance);
    }
    // The run inlined with its depth known (the root is never too deep), rather than a call to `holds_at`.
    let (valid, too_deep) = run_at(schema, schema.root, instance, 0);
    if too_deep {
        // Where the depth limit was reached (a `$ref` loop that never moves into the instance, or an instance
        // nested past the limit), the verdict depends on which keywords ran before it: this run checks a shape's
        // members before its `required`, the collecting evaluator the other way round. `validate` reports what
        // the collecting evaluator finds, so the verdict is its too: a union member that fails on a keyword
        // checked first does not fail the run for a loop behind it.
        return by_the_evaluator(schema, instance);
    }
    valid
}

/// [`is_valid`] answered by the collecting evaluator's run: for a schema whose `$dynamicRef`s depend on the
/// dynamic scope, and where the depth limit was reached. Out of line so that its large state is no part of the
/// common call's frame.
#[cold]
#[inline(never)]
fn by_the_evaluator(schema: &CompiledSchema, instance: &Value) -> bool {
    Evaluator::new(schema, false).run(instance)
}

/// Whether `instance` is valid against node `id` reached at `depth` (the collecting evaluator asks before it walks
/// a subtree: a valid one has nothing to report). Reaching the depth limit anywhere answers no, as it fails the
/// run in the collecting evaluator (which then reports it). The schema's dynamic scope must not matter.
pub(crate) fn holds_at(schema: &CompiledSchema, id: NodeId, instance: &Value, depth: u32) -> bool {
    let (valid, too_deep) = run_at(schema, id, instance, depth);
    valid && !too_deep
}

/// Whether a number is valid against node `id` at `depth`, told from `x`, its correctly rounded `f64`, alone (the
/// typed route reads a float that way, without its digits): `Some` only where `x` settles it, that is where the
/// node's checks for numbers are bounds (through nullable unions) and `x` differs from each limit. Rounding is
/// monotonic, so a strict difference between the rounded values is the exact answer. `None` for anything else (a
/// tie, an integer-only type, another keyword): the caller then decides from the digits.
pub(crate) fn float_holds_at(schema: &CompiledSchema, id: NodeId, x: f64, depth: u32) -> Option<bool> {
    let plan = schema.plans.get(id as usize)?;
    if plan.always {
        return Some(true);
    }
    if depth > MAX_DEPTH {
        return None;
    }
    if !plan.types.admits_kind(plan::NUMBER_KIND) {
        // Integers at most (or no number): a rounded value with a fraction is not an integer's (an integer of at
        // most 2^53 rounds to itself), so the number is refused; an integral one may have lost its fraction.
        return (x.fract() != 0.0).then_some(false);
    }
    for check in plan.checks_for(plan::NUMBER_KIND) {
        let holds = match *check {
            // A short integer limit is exact in `f64` (and checked to be).
            Check::IntBound { bound, limit, .. } if limit.unsigned_abs() <= 1 << 53 => {
                bound.holds(strictly(x, limit as f64)?)
            }
            Check::Keyword(index) => match &schema.nodes.get(id as usize)?.body {
                Body::Keywords(keywords) => match keywords.get(usize::from(index))? {
                    Keyword::Bound {
                        bound,
                        approx: Some(approx),
                        ..
                    } => bound.holds(strictly(x, *approx)?),
                    _ => return None,
                },
                Body::Bool(_) => return None,
            },
            Check::Nullable { value, .. } if depth < MAX_DEPTH => {
                float_holds_at(schema, value, x, depth + 1)?
            }
            _ => return None,
        };
        if !holds {
            return Some(false);
        }
    }
    Some(true)
}

/// Whether [`float_holds_at`] settles every float at node `id` but a tie: the node admits numbers and its checks
/// for them are bounds (through nullable unions). The typed route reads a float without its digits only there.
pub(crate) fn floats_settle_at(schema: &CompiledSchema, id: NodeId, depth: u32) -> bool {
    let Some(plan) = schema.plans.get(id as usize) else {
        return false;
    };
    if plan.always {
        return true;
    }
    if depth > MAX_DEPTH || !plan.types.admits_kind(plan::NUMBER_KIND) {
        return false;
    }
    plan.checks_for(plan::NUMBER_KIND)
        .iter()
        .all(|check| match *check {
            Check::IntBound { limit, .. } => limit.unsigned_abs() <= 1 << 53,
            Check::Keyword(index) => matches!(
                schema.nodes.get(id as usize).map(|node| &node.body),
                Some(Body::Keywords(keywords))
                    if matches!(keywords.get(usize::from(index)), Some(Keyword::Bound { approx: Some(_), .. }))
            ),
            Check::Nullable { value, .. } => depth < MAX_DEPTH && floats_settle_at(schema, value, depth + 1),
            _ => false,
        })
}

/// `x` against `limit` when they differ; `None` for a tie (or NaN, which JSON does not have).
fn strictly(x: f64, limit: f64) -> Option<std::cmp::Ordering> {
    x.partial_cmp(&limit).filter(|order| order.is_ne())
}

/// As [`holds_at`], but `None` when the depth limit was reached (the caller then evaluates the subtree itself, so
/// that the limit is reported where it was reached).
pub(crate) fn answer_at(schema: &CompiledSchema, id: NodeId, instance: &Value, depth: u32) -> Option<bool> {
    let (valid, too_deep) = run_at(schema, id, instance, depth);
    (!too_deep).then_some(valid)
}

/// One run from node `id` at `depth`: its verdict, and whether the depth limit was reached anywhere.
#[inline(always)]
fn run_at(schema: &CompiledSchema, id: NodeId, instance: &Value, depth: u32) -> (bool, bool) {
    let mut flag = Flag {
        schema,
        root: instance,
        plans: &schema.plans,
        rare: None,
        ref_hops: 0,
        memo_after: MEMO_AFTER_HOPS,
        memo_suspended: 0,
        memo_enabled: false,
        too_deep: false,
    };
    let valid = flag.node(id, instance, depth);
    (valid, flag.too_deep)
}

/// One yes/no run.
pub(crate) struct Flag<'s> {
    pub(crate) schema: &'s CompiledSchema,
    /// The instance the run started at (its size sets when memoizing starts: see [`budget`]).
    pub(crate) root: &'s Value,
    /// The nodes laid out for this evaluator (see [`plan`]).
    pub(crate) plans: &'s [Plan],
    /// What only long runs or handed-back subtrees need, made on first need: a run that passes or fails at once
    /// builds none of it and frees nothing (its setup and drop were a tenth of a small `is_valid`).
    rare: Option<Box<Rare<'s>>>,
    pub(crate) ref_hops: u32,
    /// The hops after which the memo is used: [`MEMO_AFTER_HOPS`], doubled each time it is passed while the
    /// instance has the values for that many (see [`budget`]).
    memo_after: u32,
    /// Non-zero while evaluating property names, whose values are temporary and must not be memoized.
    pub(crate) memo_suspended: u32,
    /// Set once a union has fallen back to a second member: memoizing pays soonest then (see [`Flag::follow`]).
    pub(crate) memo_enabled: bool,
    /// Whether the depth limit, or a reference that resolves to nothing, was reached anywhere (here or in a subtree
    /// handed back): the run then fails, and a collecting caller walks the subtree itself to report where.
    pub(crate) too_deep: bool,
}

/// The part of a run's state that most runs never need (see [`Flag::rare`]).
#[derive(Default)]
struct Rare<'s> {
    /// A non-collecting evaluator for subtrees handed back.
    ev: Option<Evaluator<'s>>,
    /// Outcomes of reference hops by (node, instance address), as the collecting evaluator keeps them: once a union
    /// has fallen back to a second member and the run has made [`MEMO_AFTER_HOPS`] hops, and more than its
    /// instance's size calls for (see [`budget`]), so that unions whose members recurse into the same children stay
    /// polynomial.
    memo: HashMap<(NodeId, usize), bool, BuildHasherDefault<MemoHasher>>,
    /// Whether [`Flag::memo_after`] has stopped growing.
    memo_sized: bool,
}

impl<'s> Flag<'s> {
    /// The run's rare state, made now if this is its first need.
    fn rare(&mut self) -> &mut Rare<'s> {
        self.rare.get_or_insert_with(Box::default)
    }
}

impl Flag<'_> {
    /// Evaluates a node reached at `depth` steps from the root. Inlined into its callers (loops over items and
    /// members), with the simple checks in place and everything that descends out of line.
    #[inline(always)]
    pub(crate) fn node(&mut self, id: NodeId, instance: &Value, depth: u32) -> bool {
        let plans = self.plans;
        let Some(plan) = plans.get(id as usize) else {
            return false;
        };
        if depth > MAX_DEPTH {
            self.too_deep |= !plan.always;
            return plan.always;
        }
        let kind = plan::kind_of(instance);
        if !plan.types.admits_kind(kind) {
            // `integer` without `number` admits numbers by value: a call, kept out of here so that a node whose
            // check is a tail call (a `$ref` hop) needs no stack frame.
            return plan.types.may_admit(instance) && self.integral(plan, id, instance, depth);
        }
        self.dispatch(plan.checks_for(kind), id, instance, depth)
    }

    /// Runs the checks of node `id` for an instance whose type it admits.
    #[inline(always)]
    fn dispatch(&mut self, checks: &[Check], id: NodeId, instance: &Value, depth: u32) -> bool {
        match checks {
            // Nothing to check for this kind (`{"type": "string"}` on a string): answered here, in the caller.
            [] => true,
            // Most nodes have one check for the instance's kind (a `$ref`, a shape, an `enum`): straight to it.
            [only] => self.check(only, id, instance, depth),
            checks => self.checks(checks, id, instance, depth),
        }
    }

    /// A number at a node that admits integers only: its checks if the number is one.
    #[inline(never)]
    fn integral(&mut self, plan: &Plan, id: NodeId, instance: &Value, depth: u32) -> bool {
        let Value::Number(number) = instance else {
            return false;
        };
        let checks = plan.checks_for(plan::NUMBER_KIND);
        match crate::number::as_short_i64(number) {
            // The digits read once: the value that makes the number an integer also settles its short bounds. One
            // check (an `enum`, a bound) goes straight to it, as `dispatch` sends it.
            Some(value) => match checks {
                [] => true,
                [only] => self.integer_check(only, value, id, instance, depth),
                checks => checks
                    .iter()
                    .all(|check| self.integer_check(check, value, id, instance, depth)),
            },
            None if crate::number::is_integer(number) => self.dispatch(checks, id, instance, depth),
            None => false,
        }
    }

    /// One check of an integer instance whose value is `value`: a short bound compares it in place.
    #[inline(always)]
    fn integer_check(&mut self, check: &Check, value: i64, id: NodeId, instance: &Value, depth: u32) -> bool {
        match *check {
            Check::IntBound { bound, limit, .. } => bound.holds(value.cmp(&limit)),
            ref other => self.check(other, id, instance, depth),
        }
    }

    /// Runs a node's checks for the instance's kind, out of line, each dispatched in place (this loop has a frame
    /// anyway: a call per check would cost more than it saves).
    #[inline(never)]
    fn checks(&mut self, checks: &[Check], id: NodeId, instance: &Value, depth: u32) -> bool {
        checks
            .iter()
            .all(|check| self.check_in_place(check, id, instance, depth))
    }

    /// A subtree that needs what frames carry (`unevaluated*`), evaluated by the collecting evaluator in flag mode,
    /// its depth counted on from here.
    #[cold]
    #[inline(never)]
    fn handed_back(&mut self, id: NodeId, instance: &Value, depth: u32) -> bool {
        let schema = self.schema;
        let node = &schema.nodes[id as usize];
        let frame = Frame::detached(node.resource, depth.saturating_sub(1));
        let ev = self
            .rare()
            .ev
            .get_or_insert_with(|| Evaluator::new(schema, false));
        let valid = ev.descend(&frame, id, instance, None, "", None);
        self.too_deep |= ev.too_deep || ev.unresolved;
        valid
    }

    /// Evaluates a subschema of the node at `depth`.
    #[inline]
    pub(crate) fn child(&mut self, id: NodeId, instance: &Value, depth: u32) -> bool {
        self.node(id, instance, depth + 1)
    }

    /// Follows a reference, memoized as the collecting evaluator does. The memo is out of line: most runs never
    /// reach it, and its frame made every hop pay for one.
    #[inline(never)]
    pub(crate) fn follow(&mut self, id: NodeId, instance: &Value, depth: u32) -> bool {
        // Past the depth limit the run has failed: nothing further can change that, and a schema that recurses
        // without consuming the instance through `not` or `allOf` would otherwise walk on exponentially (every
        // cycle goes through a reference hop, so this one test bounds them all).
        if self.too_deep {
            return false;
        }
        self.ref_hops = self.ref_hops.saturating_add(1);
        // Without a union the memo waits sixteen times longer: the same node reaches the same value twice through
        // `allOf`, `not`, `items` beside `contains`, `if` beside `then`..., and a schema recursing through two of
        // them per level of the instance is exponential in its depth (2^30 walks for 30 nested arrays) unless
        // something remembers.
        let after = if self.memo_enabled {
            self.memo_after
        } else {
            self.memo_after.saturating_mul(UNGATED_MEMO_FACTOR)
        };
        if self.ref_hops > after && self.memo_suspended == 0 {
            return self.follow_memoized(id, instance, depth);
        }
        self.child(id, instance, depth)
    }

    /// [`Self::follow`] through the memo, once the run has made more hops than its instance's size calls for (until
    /// then the threshold grows, see [`budget`]).
    #[inline(never)]
    fn follow_memoized(&mut self, id: NodeId, instance: &Value, depth: u32) -> bool {
        if !self.rare.as_ref().is_some_and(|rare| rare.memo_sized) {
            match budget::next_threshold(self.root, self.memo_after) {
                Some(next) => {
                    self.memo_after = next;
                    return self.child(id, instance, depth);
                }
                None => self.rare().memo_sized = true,
            }
        }
        let key = (id, std::ptr::from_ref(instance) as usize);
        if let Some(known) = self.rare().memo.get(&key) {
            return *known;
        }
        let valid = self.child(id, instance, depth);
        self.rare().memo.insert(key, valid);
        valid
    }

    /// Runs one check of node `id`'s plan (the instance's type is admitted and of the kind the check is for). Out
    /// of line and without state of its own: each arm is a leaf test or a tail call, so that a node's one check
    /// costs a jump rather than a stack frame (a frame per node was a fifth of `is_valid` on small schemas).
    #[inline(never)]
    pub(crate) fn check(&mut self, check: &Check, id: NodeId, instance: &Value, depth: u32) -> bool {
        self.check_in_place(check, id, instance, depth)
    }

    /// [`Self::check`]'s dispatch, inlined into its two callers.
    #[inline(always)]
    fn check_in_place(&mut self, check: &Check, id: NodeId, instance: &Value, depth: u32) -> bool {
        match *check {
            Check::Ref(target) => self.follow(target, instance, depth),
            Check::Not(target) => self.not(target, instance, depth),
            Check::MinItems(limit) => array::holds_min_items(limit, instance),
            Check::MaxItems(limit) => array::holds_max_items(limit, instance),
            Check::MinLength(limit) => string::holds_min_length(limit, instance),
            Check::MaxLength(limit) => string::holds_max_length(limit, instance),
            Check::MinProperties(limit) => object::holds_min_properties(limit, instance),
            Check::MaxProperties(limit) => object::holds_max_properties(limit, instance),
            Check::Pattern(ref regex) => string::holds_pattern(regex, instance),
            Check::Enum(ref options) => enum_::holds_enum(options, instance),
            Check::Strings(ref strings) => strings.holds(instance),
            Check::ShortStrings(ref strings) => strings.holds(instance),
            Check::Property { ref name, node } => self.property(name, node, instance, depth),
            Check::Properties { index, ref names } => {
                self.indexed_properties(names, (id, index), instance, depth)
            }
            Check::Shape(ref shape) => match instance {
                Value::Object(object) => self.shape(shape, object, depth),
                _ => true,
            },
            Check::ItemsOfType { types, skip } => self.items_of_type(types, skip, instance, depth),
            Check::Items { node, skip } => self.items(node, skip as usize, instance, depth),
            Check::ItemsRef { target, skip } => self.items_ref(target, skip as usize, instance, depth),
            Check::ItemsOfArrays(ref of) => self.items_of_arrays(of, instance, depth),
            Check::IntBound { bound, limit, index } => {
                self.int_bound((bound, limit), (id, index), instance, depth)
            }
            Check::Nullable { value, index } => self.nullable(value, (id, index), instance, depth),
            Check::IfChain(ref chain) => self.if_chain(chain, id, instance, depth),
            Check::HandBack => self.handed_back(id, instance, depth),
            Check::UnionByKind(ref union) => self.union_by_kind(union, instance, depth),
            Check::Keyword(index) => self.keyword_at(id, index, instance, depth),
        }
    }

    /// Runs node `id`'s keyword at `index`.
    #[inline(never)]
    pub(crate) fn keyword_at(&mut self, id: NodeId, index: u16, instance: &Value, depth: u32) -> bool {
        let schema = self.schema;
        match &schema.nodes[id as usize].body {
            Body::Keywords(keywords) => keywords
                .get(usize::from(index))
                .is_none_or(|keyword| self.run(keyword, instance, depth)),
            Body::Bool(verdict) => *verdict,
        }
    }

    /// Runs one compiled keyword.
    fn run(&mut self, keyword: &Keyword, instance: &Value, depth: u32) -> bool {
        match keyword {
            // Fails the run, as the depth limit does (see `too_deep`).
            Keyword::Unresolved { .. } => {
                self.too_deep = true;
                false
            }
            Keyword::Type(types) => types.admits(instance),
            Keyword::Ref(target) | Keyword::DynamicRef { target, .. } => {
                self.follow(*target, instance, depth)
            }
            Keyword::Const(expected) => enum_::holds_const(expected, instance),
            Keyword::Enum(options) => enum_::holds_enum(options, instance),
            Keyword::Bound {
                bound,
                limit,
                approx,
                text,
            } => numeric::holds_bound(*bound, (limit, *approx), text, instance),
            Keyword::MultipleOf { divisor, integer, .. } => {
                numeric::holds_multiple_of((divisor, *integer), instance)
            }
            Keyword::MaxLength(limit) => string::holds_max_length(*limit, instance),
            Keyword::MinLength(limit) => string::holds_min_length(*limit, instance),
            Keyword::Pattern { regex, .. } => string::holds_pattern(regex, instance),
            Keyword::Format { check, .. } => format::holds(*check, instance),
            Keyword::MaxItems(limit) => array::holds_max_items(*limit, instance),
            Keyword::MinItems(limit) => array::holds_min_items(*limit, instance),
            Keyword::UniqueItems => array::holds_unique_items(instance),
            Keyword::MaxProperties(limit) => object::holds_max_properties(*limit, instance),
            Keyword::MinProperties(limit) => object::holds_min_properties(*limit, instance),
            Keyword::Required(names) => match instance {
                Value::Object(object) => object::holds_required(names, object, self.schema.sorted_maps),
                _ => true,
            },
            Keyword::DependentRequired(rules) => match instance {
                Value::Object(object) => object::holds_dependent_required(rules, object),
                _ => true,
            },
            Keyword::Dependencies { required, schemas } => match instance {
                Value::Object(object) => {
                    object::holds_dependent_required(required, object)
                        && self.dependent_schemas(schemas, instance, depth)
                }
                _ => true,
            },
            Keyword::PrefixItems(ids) => self.prefix_items(ids, instance, depth),
            Keyword::Items { node: id, skip, .. } => self.items(*id, *skip, instance, depth),
            Keyword::Contains {
                node: id, min, max, ..
            } => self.contains(*id, *min, *max, instance, depth),
            Keyword::Properties {
                entries,
                by_name,
                split,
            } => match instance {
                Value::Object(object) => self.properties(entries, by_name, *split, object, depth),
                _ => true,
            },
            Keyword::PatternProperties(entries) => self.pattern_properties(entries, instance, depth),
            Keyword::AdditionalProperties {
                node: id,
                names,
                patterns,
            } => self.additional_properties(*id, names, patterns, instance, depth),
            Keyword::PropertyNames(id) => self.property_names(*id, instance, depth),
            Keyword::DependentSchemas(entries) => self.dependent_schemas(entries, instance, depth),
            Keyword::AllOf(ids) => self.all_of(ids, instance, depth),
            Keyword::AnyOf(ids, discriminator) => self.any_of(ids, discriminator.as_deref(), instance, depth),
            Keyword::OneOf(ids, discriminator) => self.one_of(ids, discriminator.as_deref(), instance, depth),
            Keyword::Not(id) => !self.child(*id, instance, depth),
            Keyword::If { if_, then, else_ } => self.if_(*if_, *then, *else_, instance, depth),
            Keyword::Shape(shape) => match instance {
                Value::Object(object) => self.shape(shape, object, depth),
                _ => true,
            },
            // A node with these is handed back whole by its plan; they are never run here.
            Keyword::UnevaluatedProperties(_) | Keyword::UnevaluatedItems(_) => false,
        }
    }

    // The applicators below are kept out of `run` so that its stack frame stays small: a recursion of
    // `MAX_DEPTH` nested schemas must fit in a 2 MiB thread stack, unoptimized builds included.
}

#[cfg(test)]
mod tests;
