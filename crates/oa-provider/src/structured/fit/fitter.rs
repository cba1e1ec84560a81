//! The walk that fits one document: every subschema of the caller's schema read as a merged [`Frame`], its keywords
//! sent, rewritten, relaxed or dropped as the table says for the mapping, references kept as `$defs` (one fitted copy
//! per target, or per depth where recursion is unrolled), the account, the rewrites and the map-back plan built on the
//! way. `object.rs`, `array.rs` and `values.rs` hold the parts of a frame that need more than a table lookup.

use std::collections::{BTreeMap, BTreeSet};

use oa_pointer::{JsonPointer, Location};
use serde_json::{Map, Value, json};

use super::account::{Reason, Rewrite, RewriteKind, Unenforced};
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
const ROOT: &str = "#";

/// A fitted subschema and the map-back plan node of its answers.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) value: Value,
    pub(crate) plan: usize,
}

/// A definition being fitted or fitted: `None` once fitted means nothing the provider accepts can fill it.
#[derive(Debug)]
struct Def {
    name: String,
    plan: usize,
    fitted: Option<Option<Value>>,
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
    cycles: &'a Cycles,
    defs: BTreeMap<(Location, u8), Def>,
    names: BTreeSet<String>,
    pub(crate) account: BTreeSet<Unenforced>,
    pub(crate) rewrites: BTreeSet<Rewrite>,
    pub(crate) plan: PlanBuilder,
    /// Schema objects read by merges so far (bounded).
    pub(crate) budget: usize,
    n_nodes: usize,
    depth: usize,
    /// The unrolled cycle being fitted and the level within it (one more at each reference inside the cycle).
    context: Option<(usize, u8)>,
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
    fn fit_def(&mut self, key: (Location, u8)) -> Result<(String, usize), FitError> {
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
    fn unrolled(&self, target: &Location) -> Option<usize> {
        let component = self.cycles.component(target)?;
        match self.mapping {
            Mapping::Anthropic => Some(component),
            Mapping::Gemini if self.policy.unroll.contains(target) => Some(component),
            _ => None,
        }
    }

    /// The deepest level a cycle is unrolled to: every definition on it recurs [`MAX_UNROLL`] times (each reference
    /// inside the cycle is a level), bounded by [`MAX_LEVELS`] so a wide cycle does not multiply without end.
    fn max_level(&self, component: usize) -> usize {
        let size = self.cycles.members(component).count().max(1);
        ((usize::from(MAX_UNROLL) + 1) * size).min(MAX_LEVELS) - 1
    }

    /// A definition name for `target` at `level`, unique among the fitted definitions.
    fn fresh_name(&mut self, target: &Location, level: u8) -> String {
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
    fn used_defs(&self, schema: &Value) -> Result<Map<String, Value>, FitError> {
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

    fn note_dropped_annotations(&mut self, at: &Location, annotations: &[(String, Value)]) {
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

    /// A union beside other keywords, for a provider whose objects must each be closed and complete: the keywords
    /// are distributed over the branches (`A and (B or C)` sent as `(A and B) or (A and C)`), which is exact.
    fn fit_distributed(
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
    fn fit_union(
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

    /// Keywords of a later conjunct that could not merge: dropped on OpenAI and Gemini (with the stance the table
    /// gives `allOf`), kept on Anthropic as an `allOf` of the whole conjunct (fitted, no `$ref`).
    fn fit_conflicts(&mut self, frame: &Frame, out: &mut Map<String, Value>) -> Result<(), FitError> {
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
    fn attach_extra(
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

fn push_member(out: &mut Map<String, Value>, keyword: &str, member: Value) {
    match out.get_mut(keyword) {
        Some(Value::Array(members)) => members.push(member),
        _ => {
            out.insert(keyword.to_owned(), json!([member]));
        }
    }
}

/// `anyOf` with one branch and only annotations beside it is that branch (a branch that is a bare `$ref` keeps its
/// wrapper when annotations sit beside it: that is how a reference carries them).
fn unwrap_single_branch(node: Node) -> Node {
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
fn has_own_content(frame: &Frame) -> bool {
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
fn collect_refs(value: &Value, out: &mut Vec<String>) {
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
