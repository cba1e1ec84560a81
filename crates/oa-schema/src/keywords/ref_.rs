//! `$ref`, `$dynamicRef` and 2019-09's `$recursiveRef`: resolved once at compile time; a dynamic reference searches
//! the dynamic scope at run time. A reference that resolves to nothing (when deferred) fails every evaluation that
//! reaches it with its own violation, and the whole run with it, so that no verdict rests on it.

use super::Keyword;
use crate::compile::{NodeCompiler, Target};
use crate::error::SchemaError;
use crate::eval::{Evaluator, Frame};
use crate::evaluated::Evaluated;
use crate::node::{CompiledSchema, NodeId};
use crate::registry::RECURSIVE_ANCHOR;
use crate::violation::ViolationKind;
use serde_json::Value;

pub(crate) fn compile_ref(cx: &mut NodeCompiler<'_, '_>, value: &Value) -> Result<Keyword, SchemaError> {
    let Value::String(reference) = value else {
        return Err(cx.invalid("$ref", "expected a URI reference"));
    };
    Ok(match cx.resolve("$ref", reference)? {
        Target::Node(target) => Keyword::Ref(target),
        Target::Unresolved(index) => Keyword::Unresolved {
            index,
            kind: ViolationKind::Ref,
        },
    })
}

pub(crate) fn compile_dynamic_ref(
    cx: &mut NodeCompiler<'_, '_>,
    value: &Value,
) -> Result<Keyword, SchemaError> {
    let Value::String(reference) = value else {
        return Err(cx.invalid("$dynamicRef", "expected a URI reference"));
    };
    let target = match cx.resolve("$dynamicRef", reference)? {
        Target::Node(target) => target,
        Target::Unresolved(index) => {
            return Ok(Keyword::Unresolved {
                index,
                kind: ViolationKind::DynamicRef,
            });
        }
    };
    // Only a plain-name fragment whose initial target declares the same $dynamicAnchor makes the reference dynamic;
    // otherwise it behaves exactly as $ref.
    let anchor = reference
        .rsplit_once('#')
        .map(|(_, fragment)| fragment)
        .filter(|fragment| !fragment.is_empty() && !fragment.starts_with('/'))
        .filter(|fragment| cx.target_declares(target, "$dynamicAnchor", &Value::from(*fragment)))
        .map(Box::from);
    Ok(Keyword::DynamicRef {
        target,
        anchor,
        keyword: "/$dynamicRef",
    })
}

/// `$recursiveRef` (2019-09): `"#"` whose target, the resource's root, declares `$recursiveAnchor: true` lands on the
/// outermost resource of the dynamic scope that declares it too (kept as a dynamic anchor under
/// [`RECURSIVE_ANCHOR`]); otherwise it behaves exactly as `$ref`.
pub(crate) fn compile_recursive_ref(
    cx: &mut NodeCompiler<'_, '_>,
    value: &Value,
) -> Result<Keyword, SchemaError> {
    let Value::String(reference) = value else {
        return Err(cx.invalid("$recursiveRef", "expected a URI reference"));
    };
    let target = match cx.resolve("$recursiveRef", reference)? {
        Target::Node(target) => target,
        Target::Unresolved(index) => {
            return Ok(Keyword::Unresolved {
                index,
                kind: ViolationKind::RecursiveRef,
            });
        }
    };
    let dynamic = reference == "#" && cx.target_declares(target, "$recursiveAnchor", &Value::Bool(true));
    Ok(Keyword::DynamicRef {
        target,
        anchor: dynamic.then(|| Box::from(RECURSIVE_ANCHOR)),
        keyword: "/$recursiveRef",
    })
}

pub(crate) fn evaluate_ref<'v>(
    ev: &mut Evaluator<'_>,
    target: NodeId,
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    ev.follow(frame, target, instance, "/$ref", evaluated.as_mut())
}

pub(crate) fn evaluate_dynamic_ref<'v>(
    ev: &mut Evaluator<'_>,
    (target, anchor, keyword): (NodeId, Option<&str>, &str),
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    let chosen = dynamic_target(ev.schema, frame, target, anchor);
    ev.follow(frame, chosen, instance, keyword, evaluated.as_mut())
}

/// Where a dynamic reference lands from `frame`: the outermost resource in the dynamic scope that declares its
/// anchor (or `target` itself, for a reference that is not dynamic).
pub(crate) fn dynamic_target(
    schema: &CompiledSchema,
    frame: &Frame<'_, '_>,
    target: NodeId,
    anchor: Option<&str>,
) -> NodeId {
    let Some(anchor) = anchor else {
        return target;
    };
    // Ancestry runs innermost first, so the last match is the one. Neighbouring frames mostly share a resource:
    // look each run of them up once.
    let mut chosen = target;
    let mut last = None;
    for scope in frame.ancestry() {
        if last == Some(scope.resource) {
            continue;
        }
        last = Some(scope.resource);
        if let Some(found) = schema.resources[scope.resource as usize]
            .dynamic_anchors
            .get(anchor)
        {
            chosen = *found;
        }
    }
    chosen
}

/// A reference that resolves to nothing, reached: the run fails whatever the branch (see
/// [`Evaluator::reach_unresolved`]).
pub(crate) fn evaluate_unresolved(
    ev: &mut Evaluator<'_>,
    (index, kind): (u32, ViolationKind),
    frame: &Frame<'_, '_>,
) -> bool {
    ev.reach_unresolved(frame, index, kind);
    false
}
