//! References in the fitted schema: each target fitted once as a definition (once per level where a recursion is
//! unrolled), named, written as `$ref`, copied in where the provider takes no `$ref` beside other keywords, and only
//! the definitions the fitted schema reaches sent.

use std::collections::BTreeMap;

use oa_pointer::{JsonPointer, Location};
use serde_json::{Map, Value, json};

use super::account::{Rewrite, RewriteKind};
use super::error::FitError;
use super::fitter::{Fitter, MAX_LEVELS, MAX_UNROLL, Node, ROOT};
use crate::model::Mapping;

/// A definition being fitted or fitted: `None` once fitted means nothing the provider accepts can fill it.
#[derive(Debug)]
pub(super) struct Def {
    pub(super) name: String,
    pub(super) plan: usize,
    pub(super) fitted: Option<Option<Value>>,
}

impl Fitter<'_> {
    /// A reference from `holder` to `target`, with the annotations written beside it.
    pub(crate) fn fit_ref(
        &mut self,
        holder: &Location,
        target: &Location,
        annotations: Vec<(String, Value)>,
    ) -> Result<Option<Node>, FitError> {
        let unrolled = self.unrolled(target);
        let level = match (unrolled, self.context) {
            (Some(component), Some((current, level))) if component == current => level.saturating_add(1),
            _ => 0,
        };
        if unrolled.is_some_and(|component| usize::from(level) > self.max_level(component)) {
            return Ok(None);
        }
        let key = (target.clone(), level);
        let (name, plan) = match self.defs.get(&key) {
            Some(Def {
                fitted: Some(None), ..
            }) => return Ok(None),
            Some(def) => (def.name.clone(), def.plan),
            None => self.fit_def(key.clone())?,
        };
        if matches!(
            self.defs.get(&key),
            Some(Def {
                fitted: Some(None),
                ..
            })
        ) {
            return Ok(None);
        }
        let node_plan = self.plan.node();
        self.plan.alternative(node_plan, plan);
        let reference = json!({"$ref": reference_to(&name)});
        if annotations.is_empty() {
            return Ok(Some(Node {
                value: reference,
                plan: node_plan,
            }));
        }
        self.rewrites.insert(Rewrite {
            pointer: holder.clone(),
            kind: RewriteKind::RefRewritten,
        });
        let mut map = match (self.mapping, self.defs.get(&key)) {
            // Anthropic: no `$ref` beside other keywords and no union to spend; the fitted target is copied in.
            (
                Mapping::Anthropic,
                Some(Def {
                    fitted: Some(Some(Value::Object(body))),
                    ..
                }),
            ) => body.clone(),
            (Mapping::Anthropic, _) => {
                self.note_dropped_annotations(holder, &annotations);
                return Ok(Some(Node {
                    value: reference,
                    plan: node_plan,
                }));
            }
            _ => Map::from_iter([("anyOf".to_owned(), json!([reference]))]),
        };
        for (name, value) in annotations {
            map.insert(name, value);
        }
        self.count_node()?;
        Ok(Some(Node {
            value: Value::Object(map),
            plan: node_plan,
        }))
    }

    /// Fits a reference target as a definition of its own.
    pub(super) fn fit_def(&mut self, key: (Location, u8)) -> Result<(String, usize), FitError> {
        let (target, level) = key.clone();
        let name = self.fresh_name(&target, level);
        let plan = self.plan.node();
        self.defs.insert(
            key.clone(),
            Def {
                name: name.clone(),
                plan,
                fitted: None,
            },
        );
        let saved = self.context;
        self.context = self.unrolled(&target).map(|component| (component, level));
        if self.context.is_some() && level == 0 {
            self.rewrites.insert(Rewrite {
                pointer: target.clone(),
                kind: RewriteKind::RecursionUnrolled,
            });
        }
        let fitted = self.fit_at(&target);
        self.context = saved;
        let fitted = fitted?;
        if let Some(node) = &fitted {
            self.plan.alternative(plan, node.plan);
        }
        if let Some(def) = self.defs.get_mut(&key) {
            def.fitted = Some(fitted.map(|node| node.value));
        }
        Ok((name, plan))
    }

    /// The cycle `target` sits on, when this mapping unrolls it.
    pub(super) fn unrolled(&self, target: &Location) -> Option<usize> {
        let component = self.cycles.component(target)?;
        match self.mapping {
            Mapping::Anthropic => Some(component),
            Mapping::Gemini if self.policy.unroll.contains(target) => Some(component),
            _ => None,
        }
    }

    /// The deepest level a cycle is unrolled to: every definition on it recurs [`MAX_UNROLL`] times (each reference
    /// inside the cycle is a level), bounded by [`MAX_LEVELS`] so a wide cycle does not multiply without end.
    pub(super) fn max_level(&self, component: usize) -> usize {
        let size = self.cycles.members(component).count().max(1);
        ((usize::from(MAX_UNROLL) + 1) * size).min(MAX_LEVELS) - 1
    }

    /// A definition name for `target` at `level`, unique among the fitted definitions.
    pub(super) fn fresh_name(&mut self, target: &Location, level: u8) -> String {
        let last = target
            .tokens()
            .next_back()
            .map(|token| token.into_owned())
            .unwrap_or_default();
        let mut base: String = last
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                    c
                } else {
                    '_'
                }
            })
            .take(60)
            .collect();
        if base.is_empty() || target.is_root() {
            base = "root".to_owned();
        }
        if level > 0 {
            base = format!("{base}__{level}");
        }
        let mut name = base.clone();
        let mut suffix = 2;
        while !self.names.insert(name.clone()) {
            name = format!("{base}_{suffix}");
            suffix += 1;
        }
        name
    }

    /// The fitted definitions reachable from `schema` by reference.
    pub(super) fn used_defs(&self, schema: &Value) -> Result<Map<String, Value>, FitError> {
        let by_name: BTreeMap<&str, &Def> = self.defs.values().map(|def| (def.name.as_str(), def)).collect();
        let mut used = Map::new();
        let mut pending = Vec::new();
        collect_refs(schema, &mut pending);
        while let Some(name) = pending.pop() {
            if name == ROOT || used.contains_key(&name) {
                continue;
            }
            let Some(Def {
                fitted: Some(Some(body)),
                ..
            }) = by_name.get(name.as_str())
            else {
                // A reference to a definition that turned out to have no answer the provider accepts.
                let source = self
                    .defs
                    .iter()
                    .find(|(_, def)| def.name == name)
                    .map(|((source, _), _)| source.clone())
                    .unwrap_or_default();
                return Err(FitError::Unsatisfiable {
                    mapping: self.mapping,
                    pointer: source,
                    why: "a recursive definition with no answer the provider accepts",
                });
            };
            collect_refs(body, &mut pending);
            used.insert(name, body.clone());
        }
        used.sort_keys();
        Ok(used)
    }

    /// The body of a fitted definition a bare reference names, for places that take no `$ref` (Anthropic's
    /// `allOf`); the reference itself when the definition is not fitted yet.
    pub(crate) fn copy_of(&self, value: &Value) -> Value {
        let Some(reference) = value.get("$ref").and_then(Value::as_str) else {
            return value.clone();
        };
        self.defs
            .values()
            .find(|def| reference_to(&def.name) == reference)
            .and_then(|def| def.fitted.clone().flatten())
            .unwrap_or_else(|| value.clone())
    }
}

/// The `$ref` text for a fitted definition: `#` for the root, `#/$defs/<name>` otherwise.
pub(crate) fn reference_to(name: &str) -> String {
    if name == ROOT {
        "#".to_owned()
    } else {
        JsonPointer::from_tokens(["$defs", name]).to_fragment()
    }
}

/// The definition names every `$ref` in the fitted schema `value` points to (a property named `$ref` or `enum` is a
/// name, not a keyword: the walk knows which members are schemas).
pub(super) fn collect_refs(value: &Value, out: &mut Vec<String>) {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        let Value::Object(map) = value else { continue };
        for (key, member) in map {
            match key.as_str() {
                "$ref" => {
                    if let Some(text) = member.as_str() {
                        out.push(match JsonPointer::parse_fragment(text) {
                            Ok(pointer) => pointer.tokens().nth(1).map_or(ROOT.to_owned(), str::to_owned),
                            Err(_) => ROOT.to_owned(),
                        });
                    }
                }
                "properties" => {
                    pending.extend(member.as_object().into_iter().flatten().map(|(_, schema)| schema))
                }
                "items" | "additionalProperties" => pending.push(member),
                "anyOf" | "allOf" | "prefixItems" => pending.extend(member.as_array().into_iter().flatten()),
                _ => {}
            }
        }
    }
}
