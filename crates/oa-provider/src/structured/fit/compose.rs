//! Composition in the fitted schema: unions (`oneOf` sent as `anyOf`, distributed over the keywords beside them where
//! the provider needs every object closed), keywords of an `allOf` member that could not merge, and references back
//! into a schema being merged, put beside its keywords.

use oa_pointer::Location;
use serde_json::{Map, Value, json};

use super::account::{Reason, RewriteKind};
use super::doc;
use super::error::FitError;
use super::fitter::{Fitter, Node};
use super::frame::Frame;
use crate::model::Mapping;

impl Fitter<'_> {
    /// A union beside other keywords, for a provider whose objects must each be closed and complete: the keywords
    /// are distributed over the branches (`A and (B or C)` sent as `(A and B) or (A and C)`), which is exact.
    pub(super) fn fit_distributed(
        &mut self,
        frame: &Frame,
        union: &super::frame::Union,
    ) -> Result<Option<Node>, FitError> {
        self.rewrite(&frame.host, RewriteKind::Merged);
        let plan = self.plan.node();
        let Some(members) = self.fit_union(union, plan, Some(frame))? else {
            return Ok(None);
        };
        let mut out = Map::new();
        out.insert("anyOf".to_owned(), Value::Array(members));
        Ok(Some(Node {
            value: Value::Object(out),
            plan,
        }))
    }

    /// `anyOf`/`oneOf`: the branches fitted (those nothing can fill left out), `oneOf` sent as `anyOf`; with
    /// `distribute`, each branch merged with that frame's other keywords.
    pub(super) fn fit_union(
        &mut self,
        union: &super::frame::Union,
        plan: usize,
        distribute: Option<&Frame>,
    ) -> Result<Option<Vec<Value>>, FitError> {
        let mut members = Vec::new();
        let mut live = Vec::new();
        for member in union.members() {
            let fitted = match distribute {
                Some(frame) => {
                    let mut conjuncts = frame.conjuncts.clone();
                    conjuncts.push(member.clone());
                    let branch = Frame::build_without_union(
                        &self.doc,
                        &conjuncts,
                        Some(&union.origin),
                        &mut self.budget,
                    )?;
                    self.fit_frame(&branch)?
                }
                None => self.fit_at(&member)?,
            };
            match fitted {
                Some(node) => {
                    self.plan.alternative(plan, node.plan);
                    members.push(node.value);
                    live.push(member);
                }
                None => self.rewrite(&member, RewriteKind::Unreachable(union.kind.keyword().to_owned())),
            }
        }
        if members.is_empty() {
            return Ok(None);
        }
        if union.kind == super::frame::UnionKind::OneOf {
            let disjoint = live.iter().enumerate().all(|(idx, left)| {
                live[idx + 1..]
                    .iter()
                    .all(|right| super::disjoint::provably_disjoint(&self.doc, left, right, &mut self.budget))
            });
            if disjoint {
                self.rewrite(&union.origin, RewriteKind::DisjointOneOf);
            } else if let Some(reason) = self.table_reason("oneOf") {
                self.unenforced(&union.origin, "oneOf", reason);
            }
        }
        Ok(Some(members))
    }

    /// Keywords of a later conjunct that could not merge: dropped on OpenAI and Gemini (with the stance the table
    /// gives `allOf`), kept on Anthropic as an `allOf` of the whole conjunct (fitted, no `$ref`).
    pub(super) fn fit_conflicts(
        &mut self,
        frame: &Frame,
        out: &mut Map<String, Value>,
    ) -> Result<(), FitError> {
        if frame.conflicts.is_empty() {
            return Ok(());
        }
        if self.mapping != Mapping::Anthropic {
            // The conjunction is what the provider cannot take: OpenAI rejects `allOf`, Gemini ignores it.
            let reason = if self.mapping == Mapping::OpenAi {
                Reason::DroppedRejected
            } else {
                Reason::DroppedIgnored
            };
            for (keyword, _, origin) in &frame.conflicts {
                self.unenforced(origin, keyword, reason);
            }
            return Ok(());
        }
        let mut origins: Vec<&Location> = frame.conflicts.iter().map(|(_, _, origin)| origin).collect();
        origins.dedup();
        let mut members = Vec::new();
        for origin in origins {
            let frame = self.frame(std::slice::from_ref(origin))?;
            match self.fit_frame(&frame)? {
                Some(node) => members.push(node.value),
                None => {
                    return Err(FitError::Unsatisfiable {
                        mapping: self.mapping,
                        pointer: origin.clone(),
                        why: "an allOf member nothing the provider accepts satisfies",
                    });
                }
            }
        }
        out.insert("allOf".to_owned(), Value::Array(members));
        Ok(())
    }

    /// Puts references that point back into the frame (recursion) beside its keywords: alone, the reference itself;
    /// otherwise `anyOf: [{$ref}]` (OpenAI, Gemini) or an `allOf` of the fitted target (Anthropic).
    pub(super) fn attach_extra(
        &mut self,
        mut out: Map<String, Value>,
        extra: Vec<Node>,
        plan: usize,
        frame: &Frame,
    ) -> Node {
        let asserts = out.keys().any(|key| doc::is_assertion(key));
        let mut extra = extra.into_iter();
        if !asserts && let (Some(node), 0) = (extra.next(), extra.len()) {
            let mut value = node.value;
            if let Value::Object(map) = &mut value {
                for (name, annotation) in out {
                    map.entry(name).or_insert(annotation);
                }
            }
            self.plan.alternative(plan, node.plan);
            return Node { value, plan };
        }
        for node in extra {
            self.plan.alternative(plan, node.plan);
            self.rewrite(&frame.host, RewriteKind::RefRewritten);
            if self.mapping == Mapping::Anthropic {
                let body = self.copy_of(&node.value);
                push_member(&mut out, "allOf", body);
            } else if out.contains_key("anyOf") {
                let at = frame.refs.first().map_or(&frame.host, |(_, holder)| holder);
                let reason = if self.mapping == Mapping::OpenAi {
                    Reason::DroppedRejected
                } else {
                    Reason::DroppedIgnored
                };
                self.unenforced(at, "$ref", reason);
            } else {
                push_member(&mut out, "anyOf", node.value);
            }
        }
        Node {
            value: Value::Object(out),
            plan,
        }
    }
}

pub(super) fn push_member(out: &mut Map<String, Value>, keyword: &str, member: Value) {
    match out.get_mut(keyword) {
        Some(Value::Array(members)) => members.push(member),
        _ => {
            out.insert(keyword.to_owned(), json!([member]));
        }
    }
}

/// `anyOf` with one branch and only annotations beside it is that branch (a branch that is a bare `$ref` keeps its
/// wrapper when annotations sit beside it: that is how a reference carries them).
pub(super) fn unwrap_single_branch(node: Node) -> Node {
    let Node { value, plan } = node;
    let Value::Object(mut map) = value else {
        return Node { value, plan };
    };
    let single = matches!(map.get("anyOf"), Some(Value::Array(members)) if members.len() == 1);
    let only_annotations = map.keys().all(|key| key == "anyOf" || !doc::is_assertion(key));
    if !(single && only_annotations) {
        return Node {
            value: Value::Object(map),
            plan,
        };
    }
    let Some(Value::Array(mut members)) = map.remove("anyOf") else {
        return Node {
            value: Value::Object(map),
            plan,
        };
    };
    match members.pop() {
        Some(Value::Object(mut member)) if !member.contains_key("$ref") || map.is_empty() => {
            for (name, annotation) in map {
                member.entry(name).or_insert(annotation);
            }
            Node {
                value: Value::Object(member),
                plan,
            }
        }
        Some(member) => {
            map.insert("anyOf".to_owned(), json!([member]));
            Node {
                value: Value::Object(map),
                plan,
            }
        }
        None => Node {
            value: Value::Object(map),
            plan,
        },
    }
}

/// Whether a frame says more than a union and annotations (so a closed-object provider needs the union distributed).
pub(super) fn has_own_content(frame: &Frame) -> bool {
    frame.types.is_some()
        || frame.enum_.is_some()
        || frame.const_.is_some()
        || !frame.objects.is_empty()
        || !frame.items.is_empty()
        || frame.prefix.is_some()
        || !frame.simple.is_empty()
        || !frame.refs.is_empty()
        || !frame.conflicts.is_empty()
}
