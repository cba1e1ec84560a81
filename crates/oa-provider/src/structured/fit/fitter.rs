//! The walk that fits one document: every subschema of the caller's schema read as a merged [`Frame`], its keywords
//! sent, rewritten, relaxed or dropped as the table says for the mapping, references kept as `$defs` (one fitted copy
//! per target, or per depth where recursion is unrolled), the account, the rewrites and the map-back plan built on the
//! way. `defs.rs` holds references, `compose.rs` unions and merges, and `object.rs`, `array.rs` and `values.rs` the
//! other parts of a frame that need more than a table lookup.

use std::collections::{BTreeMap, BTreeSet};

use oa_pointer::Location;
use serde_json::{Map, Value, json};

use super::account::{Reason, Rewrite, RewriteKind, Unenforced};
use super::compose::{has_own_content, unwrap_single_branch};
use super::defs::Def;
use super::doc::{self, Doc, Schema};
use super::error::FitError;
use super::frame::Frame;
use super::map_back::{MapBack, PlanBuilder};
use super::recursion::Cycles;
use super::table::{self, Action};
use super::{MAX_DEPTH, Policy};
use crate::model::Mapping;

/// How many times a definition on a recursion the provider cannot take recurs in the unrolled schema.
pub(crate) const MAX_UNROLL: u8 = 3;
/// The most levels (references followed inside one cycle) an unrolled recursion gets.
pub(crate) const MAX_LEVELS: usize = 12;
/// How many subschemas a fitted schema may have (inlining and unrolling on hostile input).
pub(crate) const MAX_NODES: usize = 100_000;
/// The name of the fitted root among the definitions (a reference to it is written `#`).
pub(super) const ROOT: &str = "#";

/// A fitted subschema and the map-back plan node of its answers.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) value: Value,
    pub(crate) plan: usize,
}

/// A property whose `null` the Anthropic limits pass may take away or add (see [`Policy`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Candidate {
    /// Optional and nullable: its `null` can go (narrowing).
    NullDroppable,
    /// Required and nullable in the caller's schema: can be made omittable, `null` mapped back.
    Omittable,
    /// Optional and provably never `null`: can be made required and nullable, `null` mapped back.
    Requirable,
}

/// What one run of the walk produces.
#[derive(Debug)]
pub(crate) struct Walked {
    pub(crate) schema: Value,
    pub(crate) account: BTreeSet<Unenforced>,
    pub(crate) rewrites: BTreeSet<Rewrite>,
    pub(crate) plan: MapBack,
    /// Each candidate property of the limits pass, with how many times it occurs in the fitted schema.
    pub(crate) candidates: BTreeMap<(Location, String, Candidate), usize>,
    /// The caller's subschema behind each definition name (the root included, as `#`).
    pub(crate) def_sources: BTreeMap<String, Location>,
}

pub(crate) struct Fitter<'a> {
    pub(crate) doc: Doc<'a>,
    pub(crate) mapping: Mapping,
    pub(crate) policy: &'a Policy,
    pub(super) cycles: &'a Cycles,
    pub(super) defs: BTreeMap<(Location, u8), Def>,
    pub(super) names: BTreeSet<String>,
    pub(crate) account: BTreeSet<Unenforced>,
    pub(crate) rewrites: BTreeSet<Rewrite>,
    pub(crate) plan: PlanBuilder,
    /// Schema objects read by merges so far (bounded).
    pub(crate) budget: usize,
    n_nodes: usize,
    depth: usize,
    /// The unrolled cycle being fitted and the level within it (one more at each reference inside the cycle).
    pub(super) context: Option<(usize, u8)>,
    pub(crate) candidates: BTreeMap<(Location, String, Candidate), usize>,
}

impl<'a> Fitter<'a> {
    pub(crate) fn new(doc: Doc<'a>, mapping: Mapping, policy: &'a Policy, cycles: &'a Cycles) -> Self {
        Self {
            doc,
            mapping,
            policy,
            cycles,
            defs: BTreeMap::new(),
            names: BTreeSet::new(),
            account: BTreeSet::new(),
            rewrites: BTreeSet::new(),
            plan: PlanBuilder::default(),
            budget: 0,
            n_nodes: 0,
            depth: 0,
            context: None,
            candidates: BTreeMap::new(),
        }
    }

    /// Fits the whole document.
    pub(crate) fn run(mut self) -> Result<Walked, FitError> {
        let root = Location::root();
        let (target, annotations) = self.root_target()?;
        let key = (target.clone(), 0);
        let plan = self.plan.node();
        self.names.insert(ROOT.to_owned());
        self.defs.insert(
            key.clone(),
            Def {
                name: ROOT.to_owned(),
                plan,
                fitted: None,
            },
        );
        self.context = self.unrolled(&target).map(|component| (component, 0));
        let node = if target == root {
            let frame = self.frame(std::slice::from_ref(&root))?;
            self.fit_frame(&frame)?
        } else {
            self.rewrites.insert(Rewrite {
                pointer: root.clone(),
                kind: RewriteKind::RefRewritten,
            });
            self.fit_at(&target)?
        };
        let Some(mut node) = node else {
            return Err(FitError::Unsatisfiable {
                mapping: self.mapping,
                pointer: target,
                why: "nothing the provider accepts satisfies the root",
            });
        };
        if let Value::Object(map) = &mut node.value {
            for (name, value) in annotations {
                map.insert(name, value);
            }
        }
        self.plan.alternative(plan, node.plan);
        if let Some(def) = self.defs.get_mut(&key) {
            def.fitted = Some(Some(node.value.clone()));
        }
        self.check_root(&node.value, &target)?;
        let mut schema = node.value;
        let used = self.used_defs(&schema)?;
        if !used.is_empty()
            && let Value::Object(map) = &mut schema
        {
            map.insert("$defs".to_owned(), Value::Object(used));
        }
        let def_sources = self
            .defs
            .iter()
            .map(|((source, _), def)| (def.name.clone(), source.clone()))
            .collect();
        Ok(Walked {
            schema,
            account: self.account,
            rewrites: self.rewrites,
            plan: self.plan.finish(plan),
            candidates: self.candidates,
            def_sources,
        })
    }

    /// The subschema the root stands for (a bare `$ref` at the root is followed) and the root's own annotations.
    fn root_target(&self) -> Result<(Location, Vec<(String, Value)>), FitError> {
        let mut target = Location::root();
        let mut annotations = Vec::new();
        for _ in 0..MAX_DEPTH {
            let Schema::Object(map) = self.doc.schema(&target)? else {
                break;
            };
            if !doc::is_bare_ref(map) {
                break;
            }
            if target.is_root() {
                annotations = self.kept_annotations(map);
            }
            let next = self.doc.resolve(&target, &map["$ref"])?;
            if next == target {
                break;
            }
            target = next;
        }
        Ok((target, annotations))
    }

    /// OpenAI and Anthropic need an object at the top, not a union.
    fn check_root(&self, value: &Value, target: &Location) -> Result<(), FitError> {
        if self.mapping == Mapping::Gemini {
            return Ok(());
        }
        let object_only = value.get("type") == Some(&json!("object")) && value.get("anyOf").is_none();
        if object_only {
            Ok(())
        } else {
            Err(FitError::RootNotObject {
                mapping: self.mapping,
                pointer: target.clone(),
            })
        }
    }

    /// The merged frame of a conjunction.
    pub(crate) fn frame(&mut self, conjuncts: &[Location]) -> Result<Frame, FitError> {
        Frame::build(&self.doc, conjuncts, &mut self.budget)
    }

    /// Fits the subschema at `at`.
    pub(crate) fn fit_at(&mut self, at: &Location) -> Result<Option<Node>, FitError> {
        if let Schema::Object(map) = self.doc.schema(at)?
            && doc::is_bare_ref(map)
        {
            let target = self.doc.resolve(at, &map["$ref"])?;
            let annotations = self.kept_annotations(map);
            return self.fit_ref(at, &target, annotations);
        }
        let frame = self.frame(std::slice::from_ref(at))?;
        self.fit_frame(&frame)
    }

    /// Fits the conjunction of the subschemas at `conjuncts` (none: any value), standing at `host`.
    pub(crate) fn fit_conjunction(
        &mut self,
        host: &Location,
        conjuncts: &[Location],
    ) -> Result<Option<Node>, FitError> {
        match conjuncts {
            [single] => self.fit_at(single),
            _ => {
                let mut frame = self.frame(conjuncts)?;
                if conjuncts.is_empty() {
                    frame.host = host.clone();
                }
                self.fit_frame(&frame)
            }
        }
    }

    /// Counts one more fitted subschema against [`MAX_NODES`].
    pub(crate) fn count_node(&mut self) -> Result<(), FitError> {
        self.n_nodes += 1;
        if self.n_nodes > MAX_NODES {
            return Err(FitError::TooLarge { max: MAX_NODES });
        }
        Ok(())
    }

    /// Enters one level of nesting.
    pub(crate) fn enter(&mut self, at: &Location) -> Result<(), FitError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(FitError::TooDeep {
                pointer: at.clone(),
                max: MAX_DEPTH,
            });
        }
        self.count_node()
    }

    pub(crate) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Records a clause the provider is not asked to enforce.
    pub(crate) fn unenforced(&mut self, pointer: &Location, keyword: &str, reason: Reason) {
        self.account.insert(Unenforced {
            pointer: pointer.clone(),
            keyword: keyword.to_owned(),
            reason,
        });
    }

    pub(crate) fn rewrite(&mut self, pointer: &Location, kind: RewriteKind) {
        self.rewrites.insert(Rewrite {
            pointer: pointer.clone(),
            kind,
        });
    }

    /// The annotations of a schema object this mapping sends.
    pub(crate) fn kept_annotations(&self, map: &Map<String, Value>) -> Vec<(String, Value)> {
        map.iter()
            .filter(|(name, _)| self.keeps_annotation(name))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect()
    }

    /// Whether this mapping sends an annotation (`title` and `description` everywhere, `default` to Anthropic).
    pub(crate) fn keeps_annotation(&self, name: &str) -> bool {
        matches!(name, "title" | "description") || (name == "default" && self.mapping == Mapping::Anthropic)
    }

    pub(super) fn note_dropped_annotations(&mut self, at: &Location, annotations: &[(String, Value)]) {
        for (name, _) in annotations {
            self.rewrite(at, RewriteKind::AnnotationDropped(name.clone()));
        }
    }

    /// The account reason the table gives a construct on this mapping.
    pub(crate) fn table_reason(&self, construct: &str) -> Option<Reason> {
        table::row(self.mapping, construct).and_then(table::Row::reason)
    }

    /// Fits a merged frame.
    pub(crate) fn fit_frame(&mut self, frame: &Frame) -> Result<Option<Node>, FitError> {
        self.enter(&frame.host)?;
        let fitted = self.fit_frame_inner(frame);
        self.leave();
        fitted
    }

    fn fit_frame_inner(&mut self, frame: &Frame) -> Result<Option<Node>, FitError> {
        if let Some((at, _)) = &frame.void {
            self.rewrite(at, RewriteKind::Unreachable("false".to_owned()));
            return Ok(None);
        }
        if frame.merged {
            self.rewrite(&frame.host, RewriteKind::Merged);
        }
        if self.mapping != Mapping::Gemini
            && let Some(union) = &frame.union
            && has_own_content(frame)
        {
            return self.fit_distributed(frame, union);
        }
        let plan = self.plan.node();
        let mut out = Map::new();
        let mut types = self.types(frame);
        let values = self.fit_values(frame, &mut out, &mut types)?;
        if values.is_none() {
            return Ok(None);
        }
        let mut extra: Vec<Node> = Vec::new();
        if let Some(union) = &frame.union {
            match self.fit_union(union, plan, None)? {
                Some(members) => {
                    out.insert("anyOf".to_owned(), Value::Array(members));
                }
                None => return Ok(None),
            }
        }
        for (target, holder) in &frame.refs {
            match self.fit_ref(holder, target, Vec::new())? {
                Some(node) => extra.push(node),
                None => return Ok(None),
            }
        }
        if let Some(types) = &mut types {
            if types.contains(&"object") && !self.fit_object(frame, &mut out, plan)? {
                types.retain(|name| *name != "object");
            }
            if types.contains(&"array") && !self.fit_array(frame, &mut out, plan)? {
                types.retain(|name| *name != "array");
            }
            if types.is_empty() {
                return Ok(None);
            }
        } else if self.mapping == Mapping::Gemini {
            if frame.has_object_keywords() && !self.fit_object(frame, &mut out, plan)? {
                return Ok(None);
            }
            if frame.has_array_keywords() && !self.fit_array(frame, &mut out, plan)? {
                return Ok(None);
            }
        }
        self.fit_simple(frame, &mut out, types.as_deref());
        self.fit_conflicts(frame, &mut out)?;
        for (name, value, at) in &frame.annotations {
            if self.keeps_annotation(name) {
                out.entry(name.clone()).or_insert_with(|| value.clone());
            } else {
                self.rewrite(at, RewriteKind::AnnotationDropped(name.clone()));
            }
        }
        if let Some(types) = types {
            match types.as_slice() {
                [single] => out.insert("type".to_owned(), json!(single)),
                many => out.insert("type".to_owned(), json!(many)),
            };
        } else if frame.union.is_none()
            && extra.is_empty()
            && !out.contains_key("anyOf")
            && !out.contains_key("type")
            && self.mapping != Mapping::Gemini
        {
            self.narrow_to_scalars(&frame.host, &mut out)?;
        }
        let node = self.attach_extra(out, extra, plan, frame);
        Ok(Some(unwrap_single_branch(node)))
    }

    /// The types the fitted schema says: the caller's `type`, else those of its `const`/`enum` values, else (OpenAI,
    /// Anthropic) the ones its keywords name; `None` when a union or reference carries them, or (Gemini) any value.
    fn types(&mut self, frame: &Frame) -> Option<Vec<&'static str>> {
        if let Some((names, _)) = &frame.types {
            return Some(names.clone());
        }
        if let Some(values) = super::values::listed_values(frame) {
            return Some(super::values::types_of(&values));
        }
        if frame.union.is_some() || !frame.refs.is_empty() || self.mapping == Mapping::Gemini {
            return None;
        }
        let mut named = Vec::new();
        if frame.has_object_keywords() {
            named.push("object");
        }
        if frame.has_array_keywords() {
            named.push("array");
        }
        if frame.has_string_keywords() {
            named.push("string");
        }
        if frame.has_number_keywords() {
            named.push("number");
        }
        if named.is_empty() {
            return None;
        }
        self.rewrite(&frame.host, RewriteKind::TypelessNarrowed);
        Some(named)
    }

    /// A schema with no type and nothing that carries one, on a provider that needs one: `string|number|boolean|null`
    /// (objects and arrays left out: narrowing).
    pub(crate) fn narrow_to_scalars(
        &mut self,
        host: &Location,
        out: &mut Map<String, Value>,
    ) -> Result<(), FitError> {
        for _ in 0..4 {
            self.count_node()?;
        }
        self.rewrite(host, RewriteKind::TypelessNarrowed);
        out.insert(
            "anyOf".to_owned(),
            json!([{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}]),
        );
        Ok(())
    }

    /// The table-driven keywords: kept, dropped or relaxed one by one.
    fn fit_simple(&mut self, frame: &Frame, out: &mut Map<String, Value>, types: Option<&[&str]>) {
        for (keyword, value, origin) in &frame.simple {
            let Some(row) = table::keyword_row(self.mapping, keyword, value) else {
                continue;
            };
            match row.action {
                Action::Keep => insert_kept(out, keyword, value),
                Action::Relax if self.relax(keyword, value, out, types) => continue,
                _ => {}
            }
            if let Some(reason) = row.reason() {
                self.unenforced(origin, keyword, reason);
            }
        }
    }

    /// A relaxed keyword: Anthropic's `minItems` over 1 lowered to 1; Gemini's exclusive bounds sent with an
    /// inclusive bound beside them. True when the relaxed form enforces exactly the same (no account entry).
    fn relax(
        &mut self,
        keyword: &str,
        value: &Value,
        out: &mut Map<String, Value>,
        types: Option<&[&str]>,
    ) -> bool {
        match keyword {
            "minItems" => {
                out.insert("minItems".to_owned(), json!(1));
                false
            }
            "exclusiveMinimum" | "exclusiveMaximum" => {
                out.insert(keyword.to_owned(), value.clone());
                let lower = keyword == "exclusiveMinimum";
                let inclusive = if lower { "minimum" } else { "maximum" };
                let integers = types.is_some_and(|names| names == ["integer"]);
                let exact = integers && value.as_i64().is_some();
                let bound = match (exact, value.as_i64()) {
                    (true, Some(n)) => json!(if lower {
                        n.saturating_add(1)
                    } else {
                        n.saturating_sub(1)
                    }),
                    _ => value.clone(),
                };
                let tighter = match (out.get(inclusive).and_then(Value::as_f64), bound.as_f64()) {
                    (Some(held), Some(new)) => {
                        if lower {
                            new > held
                        } else {
                            new < held
                        }
                    }
                    _ => true,
                };
                if tighter {
                    out.insert(inclusive.to_owned(), bound);
                }
                exact
            }
            _ => {
                out.insert(keyword.to_owned(), value.clone());
                false
            }
        }
    }
}

/// Sets a kept keyword; a bound fitting already wrote (a tuple's length) stays when it is tighter.
fn insert_kept(out: &mut Map<String, Value>, keyword: &str, value: &Value) {
    let tighter_held = match (out.get(keyword).and_then(Value::as_f64), value.as_f64()) {
        (Some(held), Some(new)) if keyword.starts_with("max") => held < new,
        (Some(held), Some(new)) if keyword.starts_with("min") => held > new,
        _ => false,
    };
    if !tighter_held {
        out.insert(keyword.to_owned(), value.clone());
    }
}
